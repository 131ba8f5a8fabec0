"""Helpers every stage of the build uses: diagnostics (`logs`), progress counters (`progress`),
handing freed memory back (`memtrim`), the cache root and its eviction (`cache`), and the limits on
what is read (`limits`). Nothing here imports another part of the builder.
"""
