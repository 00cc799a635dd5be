"""A participant's upload on its way in: the archive read safely (archive), in a child process with
limits (unpacker), onto a disk with room and a quota (storage)."""
