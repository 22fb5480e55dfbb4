"""A loopback fake of the Hugging Face Hub, good enough for real ``huggingface_hub`` 2.x calls.

Real HTTP on ``127.0.0.1`` (port 0, one daemon thread per connection), in-memory git-like
state. It serves the endpoints the library actually hits:

* ``GET  /api/{models|datasets|spaces}/{repo}[/revision/{rev}]``  repo / revision info
* ``GET  /api/{type}s/{repo}/tree/{rev}[/{path}]?recursive=``       file listing
* ``POST /api/{type}s/{repo}/paths-info/{rev}``                      per-path info
* ``GET  /api/{type}s/{repo}/refs``                                 branches + PR refs
* ``HEAD|GET /[datasets/|spaces/]{repo}/resolve/{rev}/{path}``      downloads (so
  ``hf_hub_download`` / ``snapshot_download`` work, pinned to a commit sha too)
* ``POST /api/repos/create``                                        create repo (409 if it exists)
* ``POST /api/{type}s/{repo}/preupload/{rev}``                      every file is "regular"
* ``POST /api/{type}s/{repo}/commit/{rev}[?create_pr=1]``           ndjson commit; PRs become
  ``refs/pr/N`` and leave ``main`` untouched
* ``POST /api/validate-yaml``, ``GET /api/whoami-v2``

Every commit is recorded as a :class:`CommitRecord` (paths, bytes, message, PR flag, the
bearer token that sent it) so tests read back exactly what a command pushed.

Pointing the library at it
--------------------------
``huggingface_hub`` reads ``HF_ENDPOINT`` and ``HF_HUB_OFFLINE`` once, at import, into
``huggingface_hub.constants`` (and ``datasets`` copies them into ``datasets.config``). In the
test process use the ``fake_hub`` fixture of :mod:`tests.fakes.hub_fixture` (or its ``point_hub_at``): it patches those
module constants *and* sets the environment, so code that builds ``HfApi()`` at call time and
any subprocess started afterwards both talk to the fake. The module-level helpers
(``huggingface_hub.upload_file`` ...) are bound to an ``HfApi`` built at import; the fixture
re-points that one too. In a fresh subprocess, just export ``HF_ENDPOINT=<fake_hub.url>`` and
``HF_HUB_OFFLINE=0`` before Python starts.

Usage::

    def test_push(fake_hub):
        sha = fake_hub.seed("org/data", {"README.md": b"# hi"}, repo_type="dataset")
        ...  # code under test calls huggingface_hub
        rec = fake_hub.commits[-1]
        assert rec.files[".eval_results/redlinebench.yaml"].startswith(b"- dataset:")
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit


_TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
_API_ACTIONS = {"revision", "tree", "preupload", "commit", "paths-info", "refs", "discussions"}


def git_blob_sha(content: bytes) -> str:
    """The git blob id of ``content`` (what the Hub reports as a regular file's ``oid``)."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class CommitRecord:
    """One commit as the fake received it."""

    repo_id: str
    repo_type: str
    revision: str                  # the ref the client targeted ("main", ...)
    oid: str                       # the new commit sha
    message: str
    description: str
    files: dict[str, bytes]        # added / replaced files, path -> content
    deleted: list[str]
    create_pr: bool
    pr_num: int | None
    parent: str | None
    token: str | None              # bearer token sent with the commit (None: anonymous)


@dataclass
class _Commit:
    oid: str
    parent: str | None
    files: dict[str, bytes]        # full snapshot after the commit
    message: str
    date: str


@dataclass
class _Repo:
    repo_id: str
    repo_type: str
    private: bool = False
    refs: dict[str, str] = field(default_factory=dict)        # ref name -> commit oid
    commits: dict[str, _Commit] = field(default_factory=dict)
    n_prs: int = 0

    def resolve(self, rev: str) -> _Commit | None:
        if rev in self.refs:
            return self.commits[self.refs[rev]]
        if rev in self.commits:
            return self.commits[rev]
        matches = [c for oid, c in self.commits.items() if len(rev) >= 7 and oid.startswith(rev)]
        return matches[0] if len(matches) == 1 else None


class FakeHub:
    """State + server. ``url`` is the endpoint to give ``HF_ENDPOINT``."""

    def __init__(self, *, require_token_for_writes: bool = True, user: str = "fake-user") -> None:
        self.require_token_for_writes = require_token_for_writes
        self.user = user
        self.repos: dict[tuple[str, str], _Repo] = {}
        self.commits: list[CommitRecord] = []
        self.requests: list[tuple[str, str]] = []      # (method, path) of every request, in order
        self.tokens_seen: set[str] = set()
        self._lock = threading.RLock()
        self._counter = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "FakeHub":
        handler = type("_BoundHandler", (_Handler,), {"hub": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-hub", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> "FakeHub":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "FakeHub not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # ------------------------------------------------------------------ test helpers
    def create_repo(self, repo_id: str, *, repo_type: str = "model", private: bool = False) -> _Repo:
        with self._lock:
            key = (repo_type, repo_id)
            if key not in self.repos:
                repo = _Repo(repo_id, repo_type, private)
                initial = self._new_commit(repo, None, {".gitattributes": b"*.parquet filter=lfs\n"}, "initial commit")
                repo.refs["main"] = initial.oid
                self.repos[key] = repo
            return self.repos[key]

    def seed(
        self,
        repo_id: str,
        files: dict[str, bytes | str],
        *,
        repo_type: str = "model",
        message: str = "seed",
        branch: str = "main",
    ) -> str:
        """Commit ``files`` (on top of the branch head) without HTTP; returns the new commit sha."""
        with self._lock:
            repo = self.create_repo(repo_id, repo_type=repo_type)
            head = repo.commits[repo.refs[branch]] if branch in repo.refs else None
            snapshot = dict(head.files) if head else {}
            snapshot.update({p: (c.encode() if isinstance(c, str) else bytes(c)) for p, c in files.items()})
            commit = self._new_commit(repo, head.oid if head else None, snapshot, message)
            repo.refs[branch] = commit.oid
            return commit.oid

    def files_at(self, repo_id: str, revision: str = "main", *, repo_type: str = "model") -> dict[str, bytes]:
        """The full file snapshot of a repo at a ref or sha (PR refs: ``refs/pr/1``)."""
        with self._lock:
            repo = self.repos[(repo_type, repo_id)]
            commit = repo.resolve(revision)
            if commit is None:
                raise KeyError(f"{repo_id}: no revision {revision!r}")
            return dict(commit.files)

    def head(self, repo_id: str, *, repo_type: str = "model", ref: str = "main") -> str:
        with self._lock:
            return self.repos[(repo_type, repo_id)].refs[ref]

    # ------------------------------------------------------------------ internals
    def _new_commit(self, repo: _Repo, parent: str | None, files: dict[str, bytes], message: str) -> _Commit:
        self._counter += 1
        oid = hashlib.sha1(f"{repo.repo_type}/{repo.repo_id}/{self._counter}/{message}".encode()).hexdigest()
        date = datetime(2026, 1, 1, tzinfo=timezone.utc).isoformat().replace("+00:00", ".000Z")
        commit = _Commit(oid, parent, files, message, date)
        repo.commits[oid] = commit
        return commit


# ---------------------------------------------------------------------- HTTP layer
class _HttpError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None, headers: dict | None = None) -> None:
        self.status, self.message, self.code, self.headers = status, message, code, headers or {}


class _Handler(BaseHTTPRequestHandler):
    hub: FakeHub  # bound per server
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args: object) -> None:  # keep pytest output clean
        pass

    # -- plumbing ------------------------------------------------------------
    def _token(self) -> str | None:
        auth = self.headers.get("Authorization") or ""
        if auth.lower().startswith("bearer "):
            token = auth[7:].strip()
            self.hub.tokens_seen.add(token)
            return token
        return None

    def _body(self) -> bytes:
        self._body_read = True
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _send(self, status: int, body: bytes = b"", headers: dict | None = None, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for key, value in (headers or {}).items():
            self.send_header(key, str(value))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: object, status: int = 200, headers: dict | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), headers)

    def _dispatch(self) -> None:
        split = urlsplit(self.path)
        self.hub.requests.append((self.command, split.path))
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        parts = [p for p in split.path.split("/") if p]
        self._body_read = False
        try:
            if parts[:1] == ["api"]:
                self._api(parts[1:], query)
            elif "resolve" in parts:
                self._resolve(parts)
            else:
                raise _HttpError(404, f"no route for {split.path}")
        except _HttpError as err:
            if not self._body_read:  # an unread body would be parsed as the next request on this connection
                self._body()
            headers = dict(err.headers)
            if err.code:
                headers["X-Error-Code"] = err.code
            headers["X-Error-Message"] = err.message
            self._json({"error": err.message}, err.status, headers)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = lambda self: self._dispatch()  # noqa: E731

    # -- repo lookup -----------------------------------------------------------
    def _repo(self, repo_type: str, repo_id: str) -> _Repo:
        repo = self.hub.repos.get((repo_type, repo_id))
        if repo is None or (repo.private and self._token() is None):
            raise _HttpError(404, f"Repository Not Found for url: {repo_type}s/{repo_id}", "RepoNotFound")
        return repo

    def _commit(self, repo: _Repo, rev: str) -> _Commit:
        commit = repo.resolve(rev)
        if commit is None:
            raise _HttpError(404, f"Invalid rev id: {rev}", "RevisionNotFound")
        return commit

    @staticmethod
    def _split_repo(rest: list[str]) -> tuple[str, list[str]]:
        """``[ns, name, action, ...]`` or ``[name, action, ...]`` -> (repo_id, remainder)."""
        if len(rest) >= 2 and rest[1] not in _API_ACTIONS:
            return f"{rest[0]}/{rest[1]}", rest[2:]
        return rest[0], rest[1:]

    def _require_write(self) -> str | None:
        token = self._token()
        if self.hub.require_token_for_writes and token is None:
            raise _HttpError(401, "Invalid username or password.")
        return token

    # -- /api ---------------------------------------------------------------
    def _api(self, parts: list[str], query: dict[str, str]) -> None:
        hub = self.hub
        if parts == ["whoami-v2"]:
            if self._token() is None:
                raise _HttpError(401, "Invalid credentials in Authorization header")
            return self._json({"type": "user", "name": hub.user, "orgs": [], "auth": {"type": "access_token"}})
        if parts == ["validate-yaml"]:
            self._body()
            return self._json({"errors": [], "warnings": []})
        if parts == ["repos", "create"]:
            return self._create_repo()
        if not parts or parts[0] not in _TYPES or len(parts) < 2:
            raise _HttpError(404, f"no api route /api/{'/'.join(parts)}")
        repo_type = _TYPES[parts[0]]
        repo_id, rest = self._split_repo(parts[1:])
        with hub._lock:
            repo = self._repo(repo_type, repo_id)
            action = rest[0] if rest else "revision"
            rev = unquote(rest[1]) if len(rest) > 1 else "main"
            if action == "revision":
                return self._json(self._info(repo, self._commit(repo, rev)))
            if action == "tree":
                commit = self._commit(repo, rev)
                prefix = unquote("/".join(rest[2:])).strip("/")
                recursive = query.get("recursive", "false").lower() in {"1", "true"}
                return self._json(self._tree(commit, prefix, recursive))
            if action == "paths-info":
                commit = self._commit(repo, rev)
                form = parse_qs(self._body().decode())
                wanted = form.get("paths", [])
                return self._json([self._file_entry(p, commit.files[p]) for p in wanted if p in commit.files])
            if action == "refs":
                branches = [{"name": n, "ref": f"refs/heads/{n}", "targetCommit": o}
                            for n, o in repo.refs.items() if not n.startswith("refs/")]
                prs = [{"name": n, "ref": n, "targetCommit": o} for n, o in repo.refs.items() if n.startswith("refs/pr/")]
                return self._json({"branches": branches, "tags": [], "converts": [], "pullRequests": prs})
            if action == "preupload":
                self._require_write()
                commit = self._commit(repo, rev)
                payload = json.loads(self._body() or b"{}")
                files = [
                    {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False,
                     "oid": git_blob_sha(commit.files[f["path"]]) if f["path"] in commit.files else None}
                    for f in payload.get("files", [])
                ]
                return self._json({"files": files, "commitOid": commit.oid})
            if action == "commit":
                return self._commit_endpoint(repo, rev, query)
        raise _HttpError(404, f"no api route /api/{'/'.join(parts)}")

    def _info(self, repo: _Repo, commit: _Commit) -> dict:
        return {
            "_id": hashlib.md5(repo.repo_id.encode()).hexdigest()[:24],
            "id": repo.repo_id,
            "author": repo.repo_id.split("/")[0] if "/" in repo.repo_id else None,
            "sha": commit.oid,
            "private": repo.private,
            "gated": False,
            "disabled": False,
            "lastModified": commit.date,
            "createdAt": commit.date,
            "tags": [],
            "downloads": 0,
            "likes": 0,
            "siblings": [{"rfilename": p, "size": len(c), "blobId": git_blob_sha(c)} for p, c in sorted(commit.files.items())],
        }

    @staticmethod
    def _file_entry(path: str, content: bytes) -> dict:
        return {"type": "file", "oid": git_blob_sha(content), "size": len(content), "path": path}

    def _tree(self, commit: _Commit, prefix: str, recursive: bool) -> list[dict]:
        base = f"{prefix}/" if prefix else ""
        files = {p: c for p, c in commit.files.items() if p.startswith(base)}
        if prefix and not files:
            raise _HttpError(404, f"{prefix} does not exist", "EntryNotFound")
        entries: dict[str, dict] = {}
        for path, content in sorted(files.items()):
            rel = path[len(base):].split("/")
            # every folder on the way down is listed (all of them when recursive, the first otherwise)
            for depth in range(1, len(rel)):
                folder = base + "/".join(rel[:depth])
                if recursive or depth == 1:
                    entries.setdefault(folder, {"type": "directory", "oid": hashlib.sha1(folder.encode()).hexdigest(), "size": 0, "path": folder})
            if recursive or len(rel) == 1:
                entries[path] = self._file_entry(path, content)
        return list(entries.values())

    def _create_repo(self) -> None:
        self._require_write()
        payload = json.loads(self._body() or b"{}")
        name, org = payload.get("name"), payload.get("organization")
        repo_type = payload.get("type") or "model"
        if not name or repo_type not in _PREFIX:
            raise _HttpError(400, "invalid create payload")
        repo_id = f"{org or self.hub.user}/{name}"
        with self.hub._lock:
            url = f"{self.hub.url}/{_PREFIX[repo_type]}{repo_id}"
            if (repo_type, repo_id) in self.hub.repos:  # the Hub still names the repo in its 409 body
                return self._json({"error": "You already created this repo", "url": url}, 409,
                                  {"X-Error-Message": "You already created this repo"})
            self.hub.create_repo(repo_id, repo_type=repo_type, private=payload.get("visibility") == "private")
        self._json({"url": url, "name": repo_id})

    def _commit_endpoint(self, repo: _Repo, rev: str, query: dict[str, str]) -> None:
        token = self._require_write()
        body = self._body()
        create_pr = query.get("create_pr") in {"1", "true", "True"}
        header: dict = {}
        added: dict[str, bytes] = {}
        deleted: list[str] = []
        for line in body.splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            key, value = item.get("key"), item.get("value") or {}
            if key == "header":
                header = value
            elif key == "file":
                if value.get("encoding") != "base64":
                    raise _HttpError(400, "only base64 file content is supported")
                added[value["path"]] = base64.b64decode(value["content"])
            elif key in {"deletedFile", "deletedFolder"}:
                deleted.append(value["path"])
            elif key == "lfsFile":
                raise _HttpError(400, f"{value.get('path')}: this fake never asks for LFS uploads")
            else:
                raise _HttpError(400, f"unknown commit operation {key!r}")
        if not header.get("summary"):
            raise _HttpError(400, "commit summary is required")
        base = self._commit(repo, rev)
        parent_commit = header.get("parentCommit")
        if parent_commit and not create_pr and parent_commit != base.oid:
            raise _HttpError(412, "A commit has happened since. Please refresh and try again.")
        snapshot = dict(base.files)
        for path in deleted:
            if path.endswith("/") or not any(p == path for p in snapshot):
                folder = path.rstrip("/") + "/"
                gone = [p for p in snapshot if p.startswith(folder)]
                if not gone and path not in snapshot:
                    raise _HttpError(404, f"A file with this name doesn't exist: {path}", "EntryNotFound")
                for p in gone:
                    del snapshot[p]
            else:
                del snapshot[path]
        snapshot.update(added)
        with self.hub._lock:
            commit = self.hub._new_commit(repo, base.oid, snapshot, header["summary"])
            pr_num = None
            if create_pr:
                repo.n_prs += 1
                pr_num = repo.n_prs
                repo.refs[f"refs/pr/{pr_num}"] = commit.oid
            else:
                repo.refs[rev] = commit.oid
            self.hub.commits.append(CommitRecord(
                repo_id=repo.repo_id, repo_type=repo.repo_type, revision=rev, oid=commit.oid,
                message=header["summary"], description=header.get("description", ""), files=added,
                deleted=deleted, create_pr=create_pr, pr_num=pr_num, parent=base.oid, token=token,
            ))
        web = f"{self.hub.url}/{_PREFIX[repo.repo_type]}{repo.repo_id}"
        self._json({
            "success": True,
            "commitOid": commit.oid,
            "commitUrl": f"{web}/commit/{commit.oid}",
            "pullRequestUrl": f"{web}/discussions/{pr_num}" if pr_num else None,
        })

    # -- downloads -----------------------------------------------------------
    def _resolve(self, parts: list[str]) -> None:
        idx = parts.index("resolve")
        head, tail = parts[:idx], parts[idx + 1:]
        repo_type = "model"
        if head and head[0] in {"datasets", "spaces"}:
            repo_type, head = _TYPES[head[0]], head[1:]
        if not head or len(tail) < 2:
            raise _HttpError(404, "bad resolve url")
        repo_id = "/".join(head)
        rev = unquote(tail[0])
        path = unquote("/".join(tail[1:]))
        with self.hub._lock:
            repo = self._repo(repo_type, repo_id)
            commit = self._commit(repo, rev)
            if path not in commit.files:
                raise _HttpError(404, f"Entry not found: {path}", "EntryNotFound", {"X-Repo-Commit": commit.oid})
            content = commit.files[path]
        etag = git_blob_sha(content)
        self._send(200, content, {"X-Repo-Commit": commit.oid, "ETag": f'"{etag}"'}, "application/octet-stream")


__all__ = ["FakeHub", "CommitRecord", "git_blob_sha"]
