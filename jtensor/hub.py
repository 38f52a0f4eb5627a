"""``torch.hub``: the cache directory, checkpoint downloads, and ``hubconf.py`` entrypoints.

* :func:`get_dir`/:func:`set_dir` follow PyTorch's rules: ``set_dir``'s folder, otherwise
  ``$TORCH_HOME/hub``, where ``TORCH_HOME`` defaults to ``$XDG_CACHE_HOME/torch`` and
  ``XDG_CACHE_HOME`` to ``~/.cache``.
* :func:`load_state_dict_from_url` downloads into ``<hub_dir>/checkpoints`` (once: a file
  already there is used as it is) and reads it with ``jtensor.load``;
  :func:`download_url_to_file` is the download (``urllib``; a partial file never replaces a
  good one; ``hash_prefix`` checks the SHA-256).
* :func:`list`, :func:`help` and :func:`load` read a repository's ``hubconf.py``: with
  ``source='local'`` from a local directory, with ``source='github'`` (the default) from
  GitHub, downloaded into the hub directory as PyTorch does (same cache folders, trusted-repo
  list and prompt). Network operations time out after ``TIMEOUT`` seconds of silence, and an
  unreachable GitHub raises ``RuntimeError`` instead of hanging. Note that the hubconf
  entrypoints of real repositories (``pytorch/vision``...) import ``torch``/``torchvision``
  themselves: run under jtensor they need those names to resolve to jtensor.
"""

import contextlib
import errno
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from pathlib import Path
from urllib.error import HTTPError, URLError
from urllib.parse import urlparse
from urllib.request import Request, urlopen

from .serialization import load as _load

__all__ = [
    "download_url_to_file",
    "get_dir",
    "help",
    "list",
    "load",
    "load_state_dict_from_url",
    "set_dir",
]

ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
READ_DATA_CHUNK = 128 * 1024
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")
TIMEOUT = 10  # seconds without an answer before a network read gives up
_TRUSTED_REPO_OWNERS = (
    "facebookresearch",
    "facebookincubator",
    "pytorch",
    "fairinternal",
)
_PATH_SEP_PATTERN = re.compile(r"[/\\]")

_hub_dir = None


def _get_torch_home():
    return os.path.expanduser(
        os.getenv(
            ENV_TORCH_HOME,
            os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch"),
        )
    )


def get_dir():
    """The hub cache directory: :func:`set_dir`'s, otherwise ``$TORCH_HOME/hub`` (with
    ``TORCH_HOME`` defaulting to ``$XDG_CACHE_HOME/torch``, and that to ``~/.cache/torch``).
    """
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    if _hub_dir is not None:
        return _hub_dir
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d):
    """Use ``d`` (``~`` expanded) as the hub directory."""
    global _hub_dir
    _hub_dir = os.path.expanduser(d)


# ---------------------------------------------------------------------------- downloads
class _Progress:
    """A byte counter on stderr (PyTorch's stand-in when tqdm is not installed)."""

    def __init__(self, total=None, disable=False, **kwargs):
        self.total, self.disable, self.n = total, disable, 0

    def update(self, n):
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.disable:
            sys.stderr.write("\n")


def _progress_bar(**kwargs):
    try:
        from tqdm import tqdm
    except ImportError:
        return _Progress(**kwargs)
    return tqdm(**kwargs)


def download_url_to_file(url, dst, hash_prefix=None, progress=True):
    """Download ``url`` to the path ``dst`` (through a temporary ``.partial`` file, so an
    interrupted download never replaces a good file). With ``hash_prefix``, the file's
    SHA-256 must start with it (``RuntimeError`` otherwise). Network errors are urllib's
    (``URLError``, ``HTTPError``); a server silent for ``TIMEOUT`` seconds ends the download.
    """
    dst = os.path.expanduser(dst)
    for _ in range(tempfile.TMP_MAX):
        tmp_dst = dst + "." + uuid.uuid4().hex + ".partial"
        try:
            f = open(tmp_dst, "w+b")  # noqa: SIM115
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(errno.EEXIST, "No usable temporary file name found")
    req = Request(url, headers={"User-Agent": "torch.hub"})
    try:
        with urlopen(req, timeout=TIMEOUT) as u:
            content_length = u.info().get_all("Content-Length")
            file_size = None
            if content_length:
                file_size = int(content_length[0])
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            with _progress_bar(
                total=file_size,
                disable=not progress,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
            ) as pbar:
                while True:
                    buffer = u.read(READ_DATA_CHUNK)
                    if len(buffer) == 0:
                        break
                    f.write(buffer)
                    if sha256 is not None:
                        sha256.update(buffer)
                    pbar.update(len(buffer))
            f.close()
            if sha256 is not None:
                digest = sha256.hexdigest()
                if digest[: len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(
                        f'invalid hash value (expected "{hash_prefix}", got "{digest}")'
                    )
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def _is_legacy_zip_format(filename):
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infolist = zf.infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def _safe_extract_zip(zip_file, extract_to):
    extract_to = Path(extract_to).resolve(strict=False)
    for member in zip_file.infolist():
        filename = os.path.normpath(member.filename)
        if filename.startswith(("/", "\\")) or (
            len(filename) >= 2 and filename[1] == ":" and filename[0].isalpha()
        ):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(_PATH_SEP_PATTERN, filename):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        out = (extract_to / filename).resolve(strict=False)
        if out != extract_to and extract_to not in out.parents:
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        zip_file.extract(member, extract_to)


def load_state_dict_from_url(
    url,
    model_dir=None,
    map_location=None,
    progress=True,
    check_hash=False,
    file_name=None,
    weights_only=False,
):
    """Load the object ``jtensor.save``/``torch.save`` wrote at ``url``: downloaded once into
    ``model_dir`` (default ``<hub_dir>/checkpoints``) under the URL's file name (or
    ``file_name``), then read with ``jtensor.load(map_location=..., weights_only=...)``. A file
    already there is used without any download. ``check_hash`` checks the download against the
    hash in its name (``name-<sha256 prefix>.ext``). A zip holding one legacy file is
    extracted first, as in PyTorch.
    """
    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn(
            "TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead", stacklevel=2
        )
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = os.path.basename(urlparse(url).path)
    if file_name is not None:
        filename = file_name
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            r = HASH_REGEX.search(filename)
            hash_prefix = r.group(1) if r else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        warnings.warn(
            "Falling back to the old format < 1.6. This support will be deprecated in favor "
            "of default zipfile format introduced in 1.6. Please redo torch.save() to save it "
            "in the new zipfile format.",
            FutureWarning,
            stacklevel=2,
        )
        with zipfile.ZipFile(cached_file) as f:
            members = f.infolist()
            _safe_extract_zip(f, model_dir)
            cached_file = os.path.join(model_dir, members[0].filename)
    return _load(cached_file, map_location=map_location, weights_only=weights_only)


# ---------------------------------------------------------------------------- hubconf
@contextlib.contextmanager
def _add_to_sys_path(path):
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_module(name, path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_attr_from_module(module, func_name):
    if func_name not in dir(module):
        return None
    return getattr(module, func_name)


def _check_dependencies(m):
    import importlib.util

    dependencies = _load_attr_from_module(m, VAR_DEPENDENCY)
    if dependencies is not None:
        missing = [pkg for pkg in dependencies if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")


def _load_entry_from_hubconf(m, model):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    _check_dependencies(m)
    func = _load_attr_from_module(m, model)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _hubconf(repo_dir):
    with _add_to_sys_path(repo_dir):
        return _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))


def _offline(what, exc):
    return RuntimeError(
        f"torch.hub could not reach GitHub to {what} ({exc}). It looks like there is no "
        f"internet connection: with none, use a repository already in the cache ({get_dir()}) "
        "or a local copy with source='local'."
    )


def _read_url(url):
    with urlopen(url, timeout=TIMEOUT) as r:
        return r.read().decode(r.headers.get_content_charset("utf-8"))


def _parse_repo_info(github):
    if ":" in github:
        repo_info, ref = github.split(":")
    else:
        repo_info, ref = github, None
    repo_owner, repo_name = repo_info.split("/")
    if ref is None:
        # The default branch: main if it exists, otherwise master (PyTorch's assumption).
        try:
            with urlopen(
                f"https://github.com/{repo_owner}/{repo_name}/tree/main/", timeout=TIMEOUT
            ):
                ref = "main"
        except HTTPError as e:
            if e.code == 404:
                ref = "master"
            else:
                raise
        except (URLError, OSError) as e:
            for possible_ref in ("main", "master"):
                if os.path.exists(f"{get_dir()}/{repo_owner}_{repo_name}_{possible_ref}"):
                    ref = possible_ref
                    break
            if ref is None:
                raise RuntimeError(
                    "It looks like there is no internet connection and the "
                    f"repo could not be found in the cache ({get_dir()})"
                ) from e
    return repo_owner, repo_name, ref


def _validate_not_a_forked_repo(repo_owner, repo_name, ref):
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    for url_prefix in (
        f"https://api.github.com/repos/{repo_owner}/{repo_name}/branches",
        f"https://api.github.com/repos/{repo_owner}/{repo_name}/tags",
    ):
        page = 0
        while True:
            page += 1
            url = f"{url_prefix}?per_page=100&page={page}"
            try:
                response = json.loads(_read_url(Request(url, headers=headers)))
            except HTTPError:
                headers.pop("Authorization", None)
                response = json.loads(_read_url(Request(url, headers=headers)))
            if not response:
                break
            for br in response:
                if br["name"] == ref or br["commit"]["sha"].startswith(ref):
                    return
    raise ValueError(
        f"Cannot find {ref} in https://github.com/{repo_owner}/{repo_name}. "
        "If it's a commit from a forked repo, please call hub.load() with forked repo directly."
    )


def _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo):
    hub_dir = get_dir()
    filepath = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(filepath):
        Path(filepath).touch()
    with open(filepath) as file:
        trusted_repos = tuple(line.strip() for line in file)
    trusted_repos_legacy = next(os.walk(hub_dir))[1]
    owner_name = "_".join([repo_owner, repo_name])
    is_trusted = (
        owner_name in trusted_repos
        or owner_name_branch in trusted_repos_legacy
        or repo_owner in _TRUSTED_REPO_OWNERS
    )
    if (trust_repo is False) or (trust_repo == "check" and not is_trusted):
        response = input(
            f"The repository {owner_name} does not belong to the list of trusted repositories "
            "and as such cannot be downloaded. Do you trust this repository and wish to add it "
            "to the trusted list of repositories (y/N)?"
        )
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(filepath, "a") as file:
            file.write(owner_name + "\n")


def _get_cache_or_reload(github, force_reload, trust_repo, verbose=True, skip_validation=False):
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    repo_owner, repo_name, ref = _parse_repo_info(github)
    normalized_br = ref.replace("/", "_")
    owner_name_branch = "_".join([repo_owner, repo_name, normalized_br])
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo=trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    try:
        if not skip_validation:
            _validate_not_a_forked_repo(repo_owner, repo_name, ref)
        cached_file = os.path.join(hub_dir, normalized_br + ".zip")
        if os.path.exists(cached_file):
            os.remove(cached_file)
        url = f"https://github.com/{repo_owner}/{repo_name}/zipball/{ref}"
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        try:
            download_url_to_file(url, cached_file, progress=False)
        except HTTPError as err:
            if err.code != 300:
                raise
            warnings.warn(
                f"The ref {ref} is ambiguous. Perhaps it is both a tag and a branch in the "
                "repo? Torchhub will now assume that it's a branch. You can disambiguate tags "
                "and branches by explicitly passing refs/heads/branch_name or "
                "refs/tags/tag_name as the ref. That might require using skip_validation=True.",
                stacklevel=2,
            )
            url = f"https://github.com/{repo_owner}/{repo_name}/zipball/refs/heads/{ref}"
            download_url_to_file(url, cached_file, progress=False)
    except HTTPError:
        raise
    except (URLError, TimeoutError, ConnectionError) as exc:
        raise _offline(f"download {github}", exc) from exc
    with zipfile.ZipFile(cached_file) as cached_zipfile:
        extracted_repo = os.path.join(hub_dir, cached_zipfile.infolist()[0].filename)
        if os.path.exists(extracted_repo):
            shutil.rmtree(extracted_repo)
        _safe_extract_zip(cached_zipfile, hub_dir)
    os.remove(cached_file)
    if os.path.exists(repo_dir):
        shutil.rmtree(repo_dir)
    shutil.move(extracted_repo, repo_dir)
    return repo_dir


def _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose, skip_validation):
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        return _get_cache_or_reload(
            repo_or_dir, force_reload, trust_repo, verbose=verbose, skip_validation=skip_validation
        )
    return repo_or_dir


def list(
    github,
    force_reload=False,
    skip_validation=False,
    trust_repo="check",
    verbose=True,
    source="github",
):
    """The entrypoints of a repository's ``hubconf.py``: its callables whose names do not
    start with ``_``. ``github`` is ``owner/name[:ref]``, or with ``source='local'`` a local
    directory (jtensor's addition; PyTorch's ``list`` reads GitHub only)."""
    repo_dir = _repo_dir(github, source, force_reload, trust_repo, verbose, skip_validation)
    hub_module = _hubconf(repo_dir)
    return [
        f for f in dir(hub_module) if callable(getattr(hub_module, f)) and not f.startswith("_")
    ]


def help(
    github, model, force_reload=False, skip_validation=False, trust_repo="check", source="github"
):
    """The docstring of the entrypoint ``model`` of a repository's ``hubconf.py`` (``source``
    as in :func:`list`)."""
    repo_dir = _repo_dir(github, source, force_reload, trust_repo, True, skip_validation)
    return _load_entry_from_hubconf(_hubconf(repo_dir), model).__doc__


def load(
    repo_or_dir,
    model,
    *args,
    source="github",
    trust_repo="check",
    force_reload=False,
    verbose=True,
    skip_validation=False,
    **kwargs,
):
    """Call the entrypoint ``model`` of a repository's ``hubconf.py`` with ``*args`` and
    ``**kwargs`` and return its result (usually a model). ``source='github'`` (default):
    ``repo_or_dir`` is ``owner/name[:ref]``, downloaded into the hub directory (once);
    ``source='local'``: a local directory holding ``hubconf.py``. The repository's
    ``dependencies`` list must be importable (``RuntimeError`` naming the missing ones).
    """
    repo_dir = _repo_dir(repo_or_dir, source, force_reload, trust_repo, verbose, skip_validation)
    with _add_to_sys_path(repo_dir):
        hub_module = _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))
        entry = _load_entry_from_hubconf(hub_module, model)
        return entry(*args, **kwargs)
