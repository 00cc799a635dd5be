"""Pages to look at: the static tournament report and the replay viewer (HTML, offline, file://)."""
