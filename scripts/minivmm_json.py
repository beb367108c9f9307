# SPDX-License-Identifier: MIT
"""Reading minivmm --json documents: the one loader every script uses.

bench-report.py, bench-targets.py, bench-sandbox.py and minivmm-compare read
runs through this module, so a field minivmm renames or adds is handled in
one place. Names are what the document itself carries (docs/abi.md):

- a record's `id` is the number the VMM gave it (ABI 5); files from before
  have none, and there a record's id is its 1-based place in `results`,
  which is what the VMM's numbering gives too. `baseline` names an id.
- `vmm_stat` (the key of the record's VMM-side statistic under `vmm`) and,
  for hypercall rows, `call` and `encoding` name that statistic; files
  from before ABI 5 have none of them, and vmm_side() returns None there.
- the struct's `name`, `nr_vcpus` and `baseline_id` are `case`, `vcpus`
  and `baseline` in the JSON (`case` cannot be a C field name).
- `state` is the targets' state while a row was timed ("halted",
  "spin-cpl3", "preempted"), or None. Before ABI 6 the guest packed it into
  the case ("list@halted"); load() splits such a case, so every reader
  sees `case` and `state` apart whatever version wrote the file.
"""
import json

ANY = object()      # find(): any state


class FormatError(ValueError):
    """The file is not a minivmm --json document (or not readable)."""


def load(path):
    """The document at `path`, checked to be a minivmm --json file."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise FormatError(f"{path}: {e.strerror}")
    except ValueError as e:
        raise FormatError(f"{path}: not JSON ({e})")
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list) \
            or not isinstance(doc.get("environment"), dict):
        raise FormatError(f"{path}: not a minivmm --json file (no 'environment' and 'results')")
    for rec in doc["results"]:
        split_state(rec)
    return doc


def split_state(rec):
    """Give a record from before ABI 6 its own `state` (see the module's text)."""
    if isinstance(rec, dict) and "state" not in rec:
        case, at, state = str(rec.get("case", "")).partition("@")
        if at:
            rec["case"] = case
        rec["state"] = state if at else None
    return rec


def load_or_none(path):
    """The document, or None when it is missing or malformed (a failed run)."""
    try:
        return load(path)
    except FormatError:
        return None


def records(doc, suite=None):
    """The result records (of one suite if given), each with its `id`."""
    out = []
    for i, rec in enumerate(doc.get("results", []) if doc else []):
        if isinstance(rec, dict) and "id" not in rec:
            rec["id"] = i + 1
        split_state(rec)
        if suite is None or rec.get("suite") == suite:
            out.append(rec)
    return out


def by_id(doc, rid):
    """The record numbered `rid`, or None (0 names no record)."""
    if not rid:
        return None
    for rec in records(doc):
        if rec.get("id") == rid:
            return rec
    return None


def baseline(doc, rec):
    """The record `rec` is compared with, or None."""
    return by_id(doc, rec.get("baseline", 0)) if rec else None


def find(doc, case, variant, cpl=None, targets=None, suite=None, state=ANY):
    """The first record with this case and variant (and CPL, targets, suite,
    state if given: state=None asks for a row without one)."""
    for r in records(doc, suite):
        if r["case"] == case and r["variant"] == variant and \
           (cpl is None or r["cpl"] == cpl) and (targets is None or r["targets"] == targets) \
           and (state is ANY or r["state"] == state):
            return r
    return None


def tsc_khz(doc):
    return (doc or {}).get("environment", {}).get("tsc_khz") or 0


def ns(doc, cycles):
    """Guest TSC cycles in ns, None without a TSC frequency."""
    khz = tsc_khz(doc)
    return cycles * 1e6 / khz if khz and cycles is not None else None


def vmm_side(doc, rec):
    """The VMM's own statistic for the record's exit kind (a dict), or None."""
    if not doc or not rec or not rec.get("vmm_stat"):
        return None
    vmm = doc.get("vmm", {})
    if rec["vmm_stat"] != "hypercall":
        return vmm.get(rec["vmm_stat"])
    for h in vmm.get("hypercalls", []):
        if h.get("call") == rec.get("call") and h.get("encoding") == rec.get("encoding"):
            return h
    return None
