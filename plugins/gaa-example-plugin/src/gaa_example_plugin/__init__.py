"""An example GAA plugin, written the way a third-party author would write one."""
