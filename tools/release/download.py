"""Download one file over HTTP(S) into memory, with progress, and say exactly what went
wrong when it fails.

`download(url, out)` returns the body as bytes or raises DownloadError; it writes no file,
so a failed, cut or interrupted download leaves nothing behind (the caller writes the bytes
into place only after checking them). What it checks:
- the HTTP status (urllib raises HTTPError for 4xx/5xx): "the server answered 404 Not Found";
- the announced size: a Content-Length above `limit` is refused before the body is read;
- the size received: http.client returns a short body without an error when the server
  closes the connection early, so the byte count is compared with Content-Length here
  ("the connection was cut after N of TOTAL bytes"); a chunked body cut short raises
  IncompleteRead, a reset connection an OSError; without a Content-Length, more than
  `limit` bytes is refused;
- silence: no data for `timeout` seconds ends it ("no data for 60 s").
Progress: "N of TOTAL bytes (P %)" rewritten in place on a terminal; in a log (CI) one line
at every quarter, so a log shows how far it got without a line per chunk.
"""

import http.client
import urllib.error
import urllib.request

CHUNK_BYTES = 16 * 1024
TIMEOUT_S = 60
USER_AGENT = "chess-clock-release (tools/release/download.py)"


class DownloadError(Exception):
    """The download did not deliver the whole file; the message says what happened."""


class Progress:
    """Prints how much of a download has arrived (bytes of total, when the total is known)."""

    def __init__(self, out, total):
        self.out = out
        self.total = total  # None when the server sent no Content-Length
        self.tty = bool(getattr(out, "isatty", lambda: False)())
        self.quarter = 0  # quarters already printed (log mode)
        self.open_line = False  # a terminal line was started and not ended yet

    def text(self, done):
        if self.total:
            return "  %d of %d bytes (%d %%)" % (done, self.total, 100 * done // self.total)
        return "  %d bytes" % done

    def update(self, done):
        if self.tty:
            print("\r" + self.text(done), end="", file=self.out, flush=True)
            self.open_line = True
        elif self.total:
            quarter = min(4, done * 4 // self.total)
            if quarter > self.quarter:
                self.quarter = quarter
                print(self.text(done), file=self.out)

    def finish(self, done):
        if self.tty:
            self.end_line()
        elif not self.total or self.quarter < 4:
            print(self.text(done), file=self.out)

    def end_line(self):
        """End the terminal's progress line (before a message, or at the end)."""
        if self.open_line:
            print(file=self.out)
            self.open_line = False


def download(url, out, limit, timeout=TIMEOUT_S, opener=urllib.request.urlopen):
    """The bytes at `url` (at most `limit` of them); DownloadError says what went wrong."""
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    state = {"done": 0, "total": None}
    try:
        with opener(request, timeout=timeout) as response:
            return _receive(response, url, out, limit, state)
    except urllib.error.HTTPError as exc:
        raise DownloadError("the server answered %d %s" % (exc.code, exc.reason)) from None
    except urllib.error.URLError as exc:
        raise DownloadError("cannot reach the server: %s" % (exc.reason,)) from None
    except TimeoutError:
        raise DownloadError("no data for %s s (after %s)" % (timeout, _so_far(state))) from None
    except http.client.IncompleteRead:
        raise DownloadError("the connection was cut after %s" % _so_far(state)) from None
    except (OSError, http.client.HTTPException) as exc:
        raise DownloadError("the connection failed after %s: %s" % (_so_far(state), exc)) from None


def _receive(response, url, out, limit, state):
    total = state["total"] = _content_length(response)
    if total is not None and total > limit:
        raise DownloadError(
            "the server announces %d bytes, more than the %d this file can have" % (total, limit)
        )
    print("downloading %s" % url, file=out)
    progress = Progress(out, total)
    body = bytearray()
    try:
        while True:
            chunk = response.read(CHUNK_BYTES)
            if not chunk:
                break
            body += chunk
            state["done"] = len(body)
            if len(body) > limit:
                raise DownloadError(
                    "more than %d bytes arrived, more than this file can have" % limit
                )
            progress.update(len(body))
    finally:
        progress.end_line()  # a message that follows starts on its own line
    progress.finish(len(body))
    if total is not None and len(body) != total:
        raise DownloadError("the connection was cut after %s" % _so_far(state))
    return bytes(body)


def _content_length(response):
    value = response.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _so_far(state):
    if state["total"] is None:
        return "%d bytes" % state["done"]
    return "%d of %d bytes" % (state["done"], state["total"])
