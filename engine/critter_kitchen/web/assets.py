"""The pad's scripts and style sheet, as served: each file of ``static/`` minified once, when
the app is made (rjsmin and rcssmin, in the web extra), and kept in memory.

The sources keep their comments and layout for whoever reads them; a phone on the table's
network loads a third less (the meal-entry page: 106 KB of sources, 83 KB served). Only the
files found in the folder are served; any other name is 404. Each answer carries an ETag,
so a page opened again is answered 304 without a body.
"""

from __future__ import annotations

import hashlib
import os

from starlette.requests import Request
from starlette.responses import Response

MEDIA = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


def minified(name: str, text: str) -> str:
    """``text``, the file ``name``'s source, without its comments and spare white space."""
    if name.endswith(".css"):
        import rcssmin  # type: ignore[import-untyped]

        return str(rcssmin.cssmin(text))
    import rjsmin  # type: ignore[import-untyped]

    return str(rjsmin.jsmin(text))


class Assets:
    """The minified files of ``folder``, by name, with their media type and ETag."""

    def __init__(self, folder: str) -> None:
        self.files: dict[str, tuple[bytes, str, str]] = {}
        for name in sorted(os.listdir(folder)):
            media = MEDIA.get(os.path.splitext(name)[1])
            if media is None:
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                body = minified(name, f.read()).encode()
            self.files[name] = (body, media, '"' + hashlib.sha256(body).hexdigest()[:20] + '"')

    async def serve(self, request: Request) -> Response:
        found = self.files.get(request.path_params["name"])
        if found is None:
            return Response("Not Found", status_code=404, media_type="text/plain")
        body, media, etag = found
        headers = {"ETag": etag, "Cache-Control": "no-cache"}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type=media, headers=headers)
