"""The fake Hub answers real ``huggingface_hub`` calls the way the Hub does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.hub_server import FakeHub, git_blob_sha


def test_repo_info_and_listing_at_a_pinned_revision(fake_hub):
    from huggingface_hub import HfApi

    first = fake_hub.seed("org/data", {"README.md": "v1", "tasks/a/task.toml": "x=1"}, repo_type="dataset")
    second = fake_hub.seed("org/data", {"README.md": "v2", "tasks/b/task.toml": "x=2"}, repo_type="dataset")
    api = HfApi()
    assert api.dataset_info("org/data").sha == second
    assert api.dataset_info("org/data", revision=first).sha == first
    files_then = sorted(api.list_repo_files("org/data", repo_type="dataset", revision=first))
    assert files_then == [".gitattributes", "README.md", "tasks/a/task.toml"]
    top = {e.path for e in api.list_repo_tree("org/data", repo_type="dataset")}
    assert top == {".gitattributes", "README.md", "tasks"}


def test_snapshot_download_gets_the_files_of_the_requested_commit(fake_hub, tmp_path):
    from huggingface_hub import snapshot_download

    first = fake_hub.seed("org/data", {"tasks/t1/rubrics.json": b'{"v": 1}'}, repo_type="dataset")
    fake_hub.seed("org/data", {"tasks/t1/rubrics.json": b'{"v": 2}', "extra.txt": b"new"}, repo_type="dataset")
    out = Path(snapshot_download("org/data", repo_type="dataset", revision=first, cache_dir=tmp_path / "c"))
    assert (out / "tasks/t1/rubrics.json").read_bytes() == b'{"v": 1}'
    assert not (out / "extra.txt").exists()
    latest = Path(snapshot_download("org/data", repo_type="dataset", cache_dir=tmp_path / "c"))
    assert (latest / "tasks/t1/rubrics.json").read_bytes() == b'{"v": 2}'


def test_missing_repo_revision_and_file_raise_the_library_errors(fake_hub, tmp_path):
    from huggingface_hub import HfApi, hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

    fake_hub.seed("org/m", {"config.json": "{}"})
    with pytest.raises(RepositoryNotFoundError):
        HfApi().model_info("org/nope")
    with pytest.raises(RevisionNotFoundError):
        HfApi().model_info("org/m", revision="no-such-branch")
    with pytest.raises(EntryNotFoundError):
        hf_hub_download("org/m", "missing.bin", cache_dir=tmp_path)


def test_create_repo_commit_and_pr_are_recorded(fake_hub):
    from huggingface_hub import CommitOperationAdd, HfApi

    api = HfApi(token="hf_secret_token")
    url = api.create_repo("org/model", repo_type="model")
    assert url.repo_id == "org/model"
    api.create_repo("org/model", exist_ok=True)  # 409 tolerated
    main_before = fake_hub.head("org/model")
    info = api.create_commit(
        "org/model",
        [CommitOperationAdd(".eval_results/redlinebench.yaml", b"- value: 42.5\n")],
        commit_message="Add RedlineBench result",
        create_pr=True,
    )
    assert info.pr_num == 1 and info.pr_url.endswith("/discussions/1")
    rec = fake_hub.commits[-1]
    assert (rec.repo_id, rec.create_pr, rec.pr_num, rec.message) == ("org/model", True, 1, "Add RedlineBench result")
    assert rec.files == {".eval_results/redlinebench.yaml": b"- value: 42.5\n"}
    assert rec.token == "hf_secret_token"
    assert fake_hub.head("org/model") == main_before  # a PR leaves main alone
    assert fake_hub.files_at("org/model", "refs/pr/1")[".eval_results/redlinebench.yaml"] == b"- value: 42.5\n"


def test_upload_folder_of_binary_files_and_noop_skip(fake_hub, tmp_path):
    from huggingface_hub import HfApi

    folder = tmp_path / "ds"
    (folder / "data").mkdir(parents=True)
    blob = bytes(range(256)) * 40
    (folder / "data" / "test.parquet").write_bytes(blob)
    (folder / "README.md").write_text("---\nlicense: cc-by-4.0\n---\n# card\n")
    api = HfApi(token="tok")
    api.create_repo("org/ds", repo_type="dataset")
    api.upload_folder(folder_path=folder, repo_id="org/ds", repo_type="dataset", commit_message="upload")
    files = fake_hub.files_at("org/ds", repo_type="dataset")
    assert files["data/test.parquet"] == blob
    assert git_blob_sha(files["README.md"]) == git_blob_sha((folder / "README.md").read_bytes())
    n = len(fake_hub.commits)
    api.upload_file(path_or_fileobj=blob, path_in_repo="data/test.parquet", repo_id="org/ds", repo_type="dataset")
    assert len(fake_hub.commits) == n  # unchanged file: the library skips the commit


def test_writes_without_a_token_are_refused(fake_hub):
    from huggingface_hub import HfApi
    from huggingface_hub.errors import HfHubHTTPError

    with pytest.raises(HfHubHTTPError) as err:
        HfApi(token=False).create_repo("org/x")
    assert err.value.response.status_code == 401
    assert fake_hub.commits == []


def test_a_subprocess_reaches_the_fake_through_HF_ENDPOINT(tmp_path):
    with FakeHub() as hub:
        hub.seed("org/m", {"weights.txt": "w"})
        env = {**os.environ, "HF_ENDPOINT": hub.url, "HF_HUB_OFFLINE": "0", "HF_HOME": str(tmp_path)}
        code = "from huggingface_hub import HfApi; print(HfApi().model_info('org/m').sha)"
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == hub.head("org/m")
