"""Bot folders in any language: the languages a machine builds, the sandboxed build, packing a folder."""
