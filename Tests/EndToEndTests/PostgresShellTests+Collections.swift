import Foundation
import Testing
import PortalEngine
import PortalSQLite
import PortalPostgres

/// Array columns as to-many collections of values and JSON keys as key paths, through the real
/// binary against the test server. Part of the serialized PostgresShellTests.
extension PostgresShellTests {
    @Test func arrayColumnsRangeAsCollectionsAndJSONKeysAreKeyPaths() throws {
        let target = try CopyToTests.TargetDatabase()
        try PostgresConnection("dbname=\(target.name)").execute("""
            CREATE TABLE film (film_id int PRIMARY KEY, title text, special_features text[], j jsonb);
            INSERT INTO film VALUES (1, 'Alien', '{Trailers,Commentaries}', '{"a": {"b": 1}, "rating": 4}'),
                                    (2, 'Brazil', '{"Deleted Scenes"}', '{"a": {"b": 2}, "rating": "good"}'),
                                    (3, 'Casablanca', NULL, NULL), (4, 'Dune', '{}', '[1, 2]');
            """)
        let run = try Shell.run([target.url, "-e", "count film where \"Trailers\" IN special_features",
                                 "-e", "count film where ANY special_features BEGINSWITH \"Del\"",
                                 "-e", "find film select title, special_features.@count as features sort by film_id",
                                 "-e", "find film select title where j.a.b == 1",
                                 "-e", "find film select title where j.rating > 3 OR j.rating == \"good\" sort by title",
                                 "-e", "find film select title, j.a.b as b where NONE special_features == \"Trailers\" sort by film_id"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == """
            1
            1
            title\tfeatures
            Alien\t2
            Brazil\t1
            Casablanca\t0
            Dune\t0
            title
            Alien
            title
            Alien
            Brazil
            title\tb
            Brazil\t2
            Casablanca\t
            Dune\t

            """, "\(run.stdout)")
    }
}
