import PortalShell
print("portal-shell: not yet built")
