"""A plugin entry point that fails to import: the build must go on without it."""

raise ImportError("this plugin is broken on purpose")
