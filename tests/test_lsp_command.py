"""``critter-kitchen lsp`` without the editor extra: one line saying how to install it."""

from __future__ import annotations

import subprocess
import sys


def test_without_the_editor_extra_the_command_says_how_to_install_it() -> None:
    blocked = (
        "import sys; sys.modules['pygls'] = sys.modules['lsprotocol'] = None; "
        "from critter_kitchen.cli import main; sys.exit(main(['lsp']))"
    )
    done = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr == (
        "critter-kitchen: the language server needs the editor extra: pip install 'critter-kitchen[editor]' "
        "(import of lsprotocol halted; None in sys.modules)\n"
    )
