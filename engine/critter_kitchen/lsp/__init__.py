"""The language server, ``critter-kitchen lsp``: problems as a designer types, hovers,
completions and definitions for card files, ``pack.yaml``, rules cards and game records.

Installed with the ``editor`` extra (pygls), which only :mod:`.server` imports. What the
server says comes from the engine's own parts: its problems are those ``validate`` finds
(``loading.check``), read with the editor's unsaved text in place of the files on disk
(``regular.reading_buffers``); its hovers are the registry's descriptions and the English
of ``critter-kitchen cards``.
"""
