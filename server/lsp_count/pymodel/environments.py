"""Where the installed model libraries a Python model file imports are read from.

A model written on top of transformers or timm (``class MyModel(PreTrainedModel)`` with
``LlamaDecoderLayer`` blocks, a ``timm.create_model`` backbone) is counted by reading the
library's source from the project's Python environment, as the analyser reads the project's own
files: statically, never imported. Only the packages named in ``read_packages`` are read (by
default transformers, timm, peft and torchvision, whose model files, builders and get_peft_model
the tests compare with torch);
any other installed package stays outside, as it is for a machine without it.

The environments, in order (each kept only where it exists):
- the virtual environment the user activated (``$VIRTUAL_ENV``);
- a virtual environment in the file's project: ``.venv``, ``venv`` or ``env`` (a directory with
  a ``pyvenv.cfg``) beside the file or in a directory above it, up to the repository's root;
- the active conda environment (``$CONDA_PREFIX``);
- the environment lsp-count itself runs in (installed into the project's environment, it sees
  what the project imports).
Nothing is run to find them: the layout of a virtual environment says where its packages are.
"""

from __future__ import annotations

import glob
import os
import re
import sysconfig
from collections.abc import Callable, Iterator, Mapping

VENV_NAMES = (".venv", "venv", "env")
REPOSITORY_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt")
_LEVELS = 6  # directories above the file searched for a project's virtual environment


def up_to_repository_root(directory: str, levels: int) -> Iterator[str]:
    """``directory``, then those above it, up to its repository's root (the first to hold a
    ``.git``, ``pyproject.toml``, ``setup.py``, ..., included): at most ``levels`` of them."""
    for _ in range(levels):
        yield directory
        if any(os.path.exists(os.path.join(directory, marker)) for marker in REPOSITORY_MARKERS):
            return
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent


def environment_site_packages(prefix: str) -> tuple[str, ...]:
    """The package directories of the environment installed at ``prefix`` (a virtual
    environment, a conda environment): POSIX ``lib/pythonX.Y/site-packages``, newest Python
    first, or Windows' ``Lib/site-packages``."""
    found = sorted(glob.glob(os.path.join(glob.escape(prefix), "lib", "python3*", "site-packages")),
                   key=_python_version, reverse=True)
    windows = os.path.join(prefix, "Lib", "site-packages")
    if os.path.isdir(windows):
        found.append(windows)
    return tuple(d for d in found if os.path.isdir(d))


def _python_version(site: str) -> tuple[int, ...]:
    name = os.path.basename(os.path.dirname(site))[len("python"):]
    return tuple(int(p) if p.isdigit() else 0 for p in name.split("."))


def project_environments(directory: str) -> tuple[str, ...]:
    """The virtual environments of the project the directory is in: those beside it or above it,
    nearest first, up to the repository's root."""
    return tuple(os.path.join(d, name) for d in up_to_repository_root(os.path.abspath(directory), _LEVELS)
                 for name in VENV_NAMES if os.path.isfile(os.path.join(d, name, "pyvenv.cfg")))


def discover_site_packages(directory: str | None, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The package directories the analysis of a file in ``directory`` reads installed model
    libraries from (see the module's docstring for the order)."""
    environ = os.environ if environ is None else environ
    prefixes: list[str] = []
    if environ.get("VIRTUAL_ENV"):
        prefixes.append(environ["VIRTUAL_ENV"])
    if directory:
        prefixes.extend(project_environments(directory))
    if environ.get("CONDA_PREFIX"):
        prefixes.append(environ["CONDA_PREFIX"])
    out: list[str] = []
    for prefix in prefixes:
        out.extend(environment_site_packages(prefix))
    paths = sysconfig.get_paths()
    out.extend(d for d in (paths.get("purelib"), paths.get("platlib")) if d and os.path.isdir(d))
    return _unique(out)


def _unique(directories: list[str]) -> tuple[str, ...]:
    seen: set[str] = set()
    out = []
    for d in directories:
        key = os.path.realpath(d)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return tuple(out)


def module_file(stem: str) -> str | None:
    """The file Python imports a module's path without its suffix as (``stem.py``, or the package
    ``stem/__init__.py``), resolved; None where neither is there."""
    for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
        if os.path.isfile(candidate):
            return os.path.realpath(candidate)
    return None


def installed_module(parts: list[str], site_packages: tuple[str, ...],
                     find: Callable[[str], str | None] = module_file) -> str | None:
    """The file of the module ``parts`` (``["transformers", "models", "llama"]``) in the first of the
    site-packages directories that has it; None where none does. ``find``: module_file, or one that
    notes where it looked (Interpreter.module_file)."""
    for site in site_packages:
        found = find(os.path.join(site, *parts))
        if found is not None:
            return found
    return None


def _distribution_key(name: str) -> str:
    """A distribution's name as installers write it in a ``*.dist-info`` directory's name (PEP 503
    normalised, runs of ``-_.`` as one ``_``), lower case, so that "Typing-Extensions" finds
    ``typing_extensions-4.15.0.dist-info``."""
    return re.sub(r"[-_.]+", "_", name).lower()


def installed_distribution_version(name: str, site_packages: tuple[str, ...]) -> str | None:
    """The version of the distribution ``name`` in the first site-packages directory that has its
    metadata (``name-1.2.dist-info``, or an ``.egg-info``), as ``importlib.metadata.version`` reads
    it: the ``Version:`` of its ``METADATA``, else the one in the directory's name; None where none
    has. Nothing is imported."""
    key = _distribution_key(name)
    for site in site_packages:
        try:
            entries = os.listdir(site)
        except OSError:
            continue
        for entry in entries:
            stem, dot, suffix = entry.rpartition(".")
            if not dot or suffix not in ("dist-info", "egg-info"):
                continue
            project, _, version = stem.partition("-")
            if _distribution_key(project) != key:
                continue
            # (an egg's `name-1.2-py3.11.egg-info`)
            return _metadata_version(os.path.join(site, entry)) or version.partition("-")[0] or None
    return None


def _metadata_version(info: str) -> str | None:
    """The ``Version:`` header of a metadata directory's ``METADATA`` or ``PKG-INFO`` (or an egg's
    ``PKG-INFO`` file)."""
    for path in (os.path.join(info, "METADATA"), os.path.join(info, "PKG-INFO"), info):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line[len("Version:"):].strip() or None
                    if not line.strip():
                        break  # the headers end at the first blank line
        except OSError:
            continue
    return None


def unread_package_note(package: str, read: frozenset[str], site_packages: tuple[str, ...]) -> str:
    """Why an installed package's classes are not read, where the user can change it: the package
    is in an environment found but not in ``read-packages``, or named there but in no environment
    found. "" otherwise (a package installed nowhere the analyser looks, or reading turned off)."""
    if package in read:
        return (f"`{package}` is in `read-packages`, but not in the site-packages directories found "
                f"({len(site_packages)}; `site-packages` names others)")
    if installed_module([package], site_packages) is not None:
        return f"`{package}` is installed: `read-packages` can name it, to read its source"
    return ""
