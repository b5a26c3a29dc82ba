#!/usr/bin/env python3
"""A loopback HTTP server that reads request bodies the way Python web
frameworks do, for Fiber's upload tests: Werkzeug's multipart parser and
urllib's form parser, each answering what it found as JSON.

    python3 Scripts/form_server.py 0      # prints the port it listens on, then serves

POST /multipart  parses multipart/form-data with Werkzeug:
                 {"fields": [[name, value]], "files": [{name, filename, content_type, size, sha256}],
                  "content_length": ..., "transfer_encoding": ...}
POST /form       parses application/x-www-form-urlencoded with urllib.parse.parse_qsl
                 (strict, UTF-8): {"pairs": [[name, value]], "raw": body}
"""
import hashlib
import json
import sys
import urllib.parse

from werkzeug.serving import make_server
from werkzeug.wrappers import Request, Response


def multipart(request):
    request.max_form_memory_size = 64 * 1024 * 1024
    fields = [[k, v] for k, vs in request.form.lists() for v in vs]
    files = []
    for name, storages in request.files.lists():
        for storage in storages:
            digest = hashlib.sha256()
            size = 0
            while True:
                block = storage.stream.read(1 << 20)
                if not block:
                    break
                digest.update(block)
                size += len(block)
            files.append({"name": name, "filename": storage.filename, "content_type": storage.content_type,
                          "size": size, "sha256": digest.hexdigest()})
    return {"fields": fields, "files": files,
            "content_length": request.headers.get("Content-Length"),
            "transfer_encoding": request.headers.get("Transfer-Encoding")}


def form(request):
    raw = request.get_data().decode("ascii")
    pairs = urllib.parse.parse_qsl(raw, keep_blank_values=True, strict_parsing=bool(raw),
                                   encoding="utf-8", errors="strict")
    return {"pairs": [list(p) for p in pairs], "raw": raw}


@Request.application
def app(request):
    try:
        if request.path == "/multipart":
            result = multipart(request)
        elif request.path == "/form":
            result = form(request)
        else:
            return Response("not found", status=404)
    except Exception as error:  # the test reads what went wrong
        return Response(f"{type(error).__name__}: {error}", status=400)
    return Response(json.dumps(result), content_type="application/json")


if __name__ == "__main__":
    server = make_server("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 0, app, threaded=True)
    print(server.server_port, flush=True)
    server.serve_forever()
