#!/usr/bin/env python3
"""Build the course website: ``python3 tasks.py site`` (or this script in the course's venv).

A Jupyter Book 1 site (Sphinx and myst-nb) made from the notebooks' stored outputs; nothing is
executed and nothing is fetched from the network, at build time or when a page is read:

* the pages: the start page (the site's home), every lecture in ``notebooks/`` and every
  student exercise set in ``exercises/`` (never ``exercises/source/``, which holds the
  solutions), each found by its folder, so a new lecture or exercise set joins by itself;
* the book's ``_config.yml`` and ``_toc.yml`` are written at build time into
  ``build/site/book/`` (git-ignored), beside copies of the notebooks (the folder names kept,
  so the links ``../exercises/NN_..._exercises.ipynb`` between them resolve);
* math: MathJax 3 is served with the site (the PyPI package ``sphinx-mathjax-offline``);
* widgets: each widget cell stores a PNG of its first picture beside the widget's view;
  ``nb_mime_priority_overrides`` drops the view (which needs a live kernel) so the PNG shows,
  with the alt text the widget machinery stored in the output's metadata
  (:meth:`kernelcourse.widgets.FigureInteractive._repr_mimebundle_`) and a caption saying that
  its sliders move in the notebook; a plain figure's alt text
  names the section it illustrates;
* a launch button on each page opens that notebook in JupyterLab on mybinder.org (the
  repository is ``[project.urls] Repository`` of ``pyproject.toml``).

    python tools/build_site.py [--out DIR] [--strict]

``--strict`` turns every Sphinx warning into an error (``-W``), as the test does. The site is
written to ``build/site/html/`` (``index.html`` forwards to the start page).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "build" / "site"
#: the folders whose notebooks are pages, in the order of the table of contents
FOLDERS = {"notebooks": "Lectures", "exercises": "Exercise sets"}
START = "notebooks/00_start_here"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
#: the caption under a widget's stored picture: on the page it is a still
WIDGET_CAPTION = ("A still of the widget at its first values. Its sliders move in the notebook: "
                  "open it in JupyterLab (the launch button above) and run it.")
BINDERHUB = "https://mybinder.org"


def repository() -> tuple[str, str]:
    """The repository's web address and branch, from ``pyproject.toml`` (one place)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    url = project["project"]["urls"]["Repository"]
    branch = project.get("tool", {}).get("kernelcourse", {}).get("branch", "main")
    return url, branch


def pages(root: Path = ROOT) -> dict[str, list[str]]:
    """The notebooks that become pages, by folder: ``{"notebooks": ["notebooks/00_...", ...]}``
    (paths without ``.ipynb``); the start page first."""
    found = {}
    for folder in FOLDERS:
        names = sorted(p.with_suffix("").name for p in (root / folder).glob("*.ipynb"))
        found[folder] = [f"{folder}/{name}" for name in names]
    return found


def _title(path: Path) -> str:
    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return path.stem


def _plain(text: str) -> str:
    """Markdown and TeX markup taken out of a heading, for an alt text."""
    text = re.sub(r"[`*_$\\]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def prepare_notebook(nb: dict) -> int:
    """Give every picture of ``nb`` an alt text in its cell's metadata (myst-nb reads
    ``mystnb.image.alt``); returns how many pictures had none stored and got one from the
    section heading above them."""
    section, guessed = "", 0
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if re.match(r"^#{1,3} ", line):
                    section = _plain(line.lstrip("#"))
            continue
        pictures = [o for o in cell.get("outputs", []) if "image/png" in o.get("data", {})]
        if not pictures:
            continue
        alt = next((o.get("metadata", {}).get("image/png", {}).get("alt") for o in pictures
                    if o.get("metadata", {}).get("image/png", {}).get("alt")), None)
        # a static figure's own alt text, written in its cell's metadata by the notebook's author
        alt = alt or cell.get("metadata", {}).get("mystnb", {}).get("image", {}).get("alt")
        if alt is None:
            if any(WIDGET_VIEW in o["data"] for o in pictures):
                raise ValueError(f"a widget picture without the alt text its widget stores "
                                 f"(re-execute the notebook): {section!r}")
            alt = f"Figure of section {section}" if section else "Figure"
            guessed += 1
        nb_meta = cell.setdefault("metadata", {}).setdefault("mystnb", {})
        nb_meta.setdefault("image", {})["alt"] = alt
        if any(WIDGET_VIEW in o["data"] for o in pictures):
            nb_meta["figure"] = {"caption": WIDGET_CAPTION}
    return guessed


def write_book(book: Path, root: Path = ROOT) -> dict:
    """Copy the pages into ``book`` and write its ``_config.yml`` and ``_toc.yml``."""
    import yaml

    if book.exists():
        shutil.rmtree(book)
    found = pages(root)
    for folder, names in found.items():
        (book / folder).mkdir(parents=True)
        for name in names:
            nb = json.loads((root / f"{name}.ipynb").read_text())
            prepare_notebook(nb)
            (book / f"{name}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False))
    url, branch = repository()
    config = {
        "title": "Kernel methods: a notebook course",
        "author": "the kernelcourse authors",
        "copyright": "the kernelcourse authors",
        "only_build_toc_files": True,
        "execute": {"execute_notebooks": "off"},
        "repository": {"url": url, "branch": branch, "path_to_book": ""},
        "launch_buttons": {"binderhub_url": BINDERHUB, "notebook_interface": "jupyterlab",
                           "colab_url": "", "thebe": False},
        "html": {"use_repository_button": False, "use_issues_button": False,
                 "use_edit_page_button": False, "use_download_button": True,
                 "home_page_in_navbar": True},
        "sphinx": {
            "extra_extensions": ["sphinx-mathjax-offline"],
            "config": {
                # the stored picture, never the widget's view (it needs a live kernel)
                "nb_mime_priority_overrides": [["html", WIDGET_VIEW, None]],
                "html_show_sphinx": False,
            },
        },
    }
    lectures = [n for n in found["notebooks"] if n != START]
    toc = {"format": "jb-book", "root": START,
           "parts": [{"caption": FOLDERS["notebooks"], "chapters": [{"file": n} for n in lectures]},
                     {"caption": FOLDERS["exercises"],
                      "chapters": [{"file": n} for n in found["exercises"]]}]}
    (book / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    (book / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    return found


def build(out: Path = OUT, strict: bool = False, log=print) -> dict:
    """Build the site into ``out/html``; returns the page list, the seconds and the size."""
    start = time.perf_counter()
    book = out / "book"
    found = write_book(book)
    html = out / "html"
    for old in (html, out / "jb"):             # a clean build: nothing kept from an earlier one
        if old.exists():
            shutil.rmtree(old)
    jupyter_book = Path(sys.executable).parent / "jupyter-book"
    cmd = [str(jupyter_book), "build", str(book), "--path-output", str(out / "jb"), "--builder",
           "html", "--quiet"]
    if strict:
        cmd += ["--warningiserror", "--keep-going"]
    result = subprocess.run(cmd, cwd=out, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"jupyter-book build failed ({result.returncode}):\n"
                           f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    shutil.move(str(out / "jb" / "_build" / "html"), html)
    shutil.rmtree(out / "jb", ignore_errors=True)
    seconds = time.perf_counter() - start
    size = sum(p.stat().st_size for p in html.rglob("*") if p.is_file())
    n_pages = sum(len(v) for v in found.values())
    log(f"site: {n_pages} pages ({', '.join(f'{len(v)} in {k}/' for k, v in found.items())}), "
        f"{size / 1e6:.1f} MB in {html}, built in {seconds:.1f} s")
    if result.stderr.strip():
        log(result.stderr.strip()[-2000:])
    return {"pages": found, "html": html, "seconds": seconds, "bytes": size,
            "stderr": result.stderr}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="build folder (default build/site)")
    parser.add_argument("--strict", action="store_true", help="warnings are errors (-W)")
    args = parser.parse_args(argv)
    try:
        build(args.out.resolve(), strict=args.strict)
    except (RuntimeError, ValueError) as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
