"""Getting a bundle onto this machine: what `--bundle` names (a folder, a `.tar.gz` archive, an
OCI layout, an `https://` release asset or an `oci://` reference) becomes a local bundle folder.

- `specs`: what a `--bundle` value names, told from its text (a URL, an `oci://` reference, a
  path), the download options' names and defaults, and the cache root: all a start serving a
  bundle folder reads of this package;
- `resolve`: the entry point, `resolve_bundle(spec)`, which picks one of the sources below;
- `archive`: archives and OCI image layouts, checked against their digest and unpacked once
  into the cache;
- `remote`, `remote_fetch`: release assets downloaded over HTTPS (pins and bounds; the
  resumable download);
- `registry`, `registry_client`, `registry_pull`: a small OCI-distribution client (references
  and credentials, the HTTP `Session` the builder's pushes use too, `oci://` pulls);
- `swap`: replacing a file or folder so that a crash never leaves neither (shared with the
  builder).
"""
