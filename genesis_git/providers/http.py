"""One JSON POST to an OpenAI-compatible endpoint (embeddings, chat), standard library only.

Callers turn :class:`HttpFailure` into their own error with their own hint;
``kind`` says what went wrong: ``http``, ``timeout``, ``unreachable`` or ``not-json``.
"""

from __future__ import annotations

import json
from typing import Any


class HttpFailure(Exception):
    def __init__(self, message: str, kind: str, status: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.status = status


def _error_detail(exc: Any) -> str:
    """The server's own words from an error body (``{"error": {"message": …}}`` or text)."""
    try:
        body = exc.read().decode("utf-8", "replace")
    except Exception:  # pragma: no cover - a broken body must not hide the status
        return ""
    message = body
    try:
        parsed = json.loads(body)
        if isinstance(parsed, dict):
            err = parsed.get("error")
            message = str(err.get("message", err) if isinstance(err, dict) else err or body)
    except json.JSONDecodeError:
        pass
    message = " ".join(message.split())[:200]
    return f": {message}" if message else ""


def endpoint(base_url: str, path: str) -> str:
    """The URL of ``path`` (``/embeddings``, ``/chat/completions``) under an API root such as
    ``http://127.0.0.1:8080/v1``; a URL that already ends in ``path`` is used as it is."""
    url = base_url.strip().rstrip("/")
    return url if url.endswith(path) else url + path


def post_json(url: str, payload: Any, *, api_key: str | None, timeout: float, what: str) -> Any:
    """POST ``payload`` as JSON and return the parsed answer; ``what`` names the endpoint."""
    import urllib.error
    import urllib.request

    body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "User-Agent": "genesis-git"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    req = urllib.request.Request(url, data=body, headers=headers, method="POST")
    late = f"{what} did not answer within {timeout:g} s"
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
    except urllib.error.HTTPError as exc:
        raise HttpFailure(f"{what} answered HTTP {exc.code}{_error_detail(exc)}", "http",
                          exc.code) from None
    except TimeoutError:
        raise HttpFailure(late, "timeout") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise HttpFailure(late, "timeout") from None
        text = getattr(exc.reason, "strerror", None) or str(exc.reason)
        raise HttpFailure(f"{what} is unreachable: {text}", "unreachable") from None
    except (OSError, ValueError) as exc:
        raise HttpFailure(f"{what} is unreachable: {exc}", "unreachable") from None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise HttpFailure(f"{what} gave a bad answer: not JSON", "not-json") from None
