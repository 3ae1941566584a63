"""C2SP checkpoints (signed notes): our signer and verifier against the Go reference's published test
vectors (golang.org/x/mod/sumdb/note and sumdb/tlog, BSD licence: tests/data/obs/go_note_vectors.json),
and a live server's checkpoint printed by ``metis receipts checkpoint`` verified with the verifier key,
with an RFC 9162 inclusion proof from ``reflect.proof`` checked against the checkpoint's root."""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from receipts.checkpoint import (
    CheckpointError,
    NoteKey,
    format_checkpoint,
    open_checkpoint,
    open_note,
    sign_note,
    vkey_of,
)
from receipts.merkle import leaf_hash, verify_inclusion
from tests.support import ROOT, ToolBus, approved_reviewer, run_action

VECTORS = json.loads((Path(__file__).parent / "data" / "obs" / "go_note_vectors.json").read_text())


def go_private_key(skey: str) -> tuple[str, Ed25519PrivateKey]:
    """Go's ``PRIVATE+KEY+<name>+<hash>+<base64(0x01 || seed)>`` signer key."""
    _, _, name, _, blob = skey.split("+", 4)
    raw = base64.b64decode(blob)
    assert raw[0] == 1
    return name, Ed25519PrivateKey.from_private_bytes(raw[1:])


def test_our_verifier_opens_the_go_reference_note_and_refuses_tampering():
    v = VECTORS["sign"]
    key = NoteKey.parse(v["vkey"])
    assert open_note(v["signed"], key) == v["text"]
    with pytest.raises(CheckpointError):
        open_note(v["signed"].replace("answer", "answers"), key)
    with pytest.raises(CheckpointError):  # the other key of the Go test names no signature here
        open_note(v["signed"], NoteKey.parse(VECTORS["multi"]["enoch_vkey"]))


def test_a_note_with_two_signatures_opens_with_either_key():
    m = VECTORS["multi"]
    note = m["text"] + "\n" + m["peter_sig"] + m["enoch_sig"]
    assert open_note(note, NoteKey.parse(m["peter_vkey"])) == m["text"]
    assert open_note(note, NoteKey.parse(m["enoch_vkey"])) == m["text"]


def test_our_signer_writes_byte_for_byte_the_go_reference_note():
    v = VECTORS["sign"]
    name, private = go_private_key(v["skey"])
    assert vkey_of(name, private.public_key()) == v["vkey"]  # key hash = SHA-256(name \n 0x01 key)[:4]
    assert sign_note(v["text"], name, private) == v["signed"]  # Ed25519 is deterministic


def test_checkpoint_body_matches_the_go_tree_format():
    t = VECTORS["tree"]
    assert leaf_hash(t["record"].encode()) == base64.b64decode(t["hash_b64"])  # RFC 9162 leaf = Go RecordHash
    assert format_checkpoint(t["origin"], t["size"], leaf_hash(t["record"].encode())) == t["golden"]


def test_bad_verifier_keys_and_notes_are_refused_with_a_reason():
    vkey = VECTORS["sign"]["vkey"]
    for bad in (vkey[:-2], vkey.replace("c74f20a3", "c74f20a4"), "x+y", vkey.replace("+ARpc", "+ZRpc"),
                "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"):
        with pytest.raises(CheckpointError):
            NoteKey.parse(bad)
    with pytest.raises(CheckpointError, match="malformed"):
        open_note("no blank line\n", NoteKey.parse(vkey))


def metis(*args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "orchestrator.cli", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


async def test_server_checkpoint_verifies_and_inclusion_proofs_check_against_its_root(server_factory, request):
    server = server_factory(env={"METIS_TREE_HEAD_INTERVAL_S": "3600"})  # heads only when asked
    _, events = await run_action(server, "t_emit", {"n": 3})
    seq = events[-1]["id"]
    async with ToolBus.connect(server, "reviewer") as rev:
        proof = await approved_reviewer(server, rev, "reflect.proof", {"seq": seq})
    data_dir = str(server.data_dir)
    note = metis("receipts", "checkpoint", "--data-dir", data_dir)
    vkey = metis("receipts", "checkpoint", "--data-dir", data_dir, "--vkey").strip()
    key = NoteKey.parse(vkey)
    origin = vkey.split("+", 1)[0]
    cp = open_checkpoint(note, key, origin=origin)
    assert cp.tree_size == proof["tree_size"] == proof["tree_head"]["tree_size"]
    assert cp.root_hash.hex() == proof["tree_head"]["root_hash"]
    verify_inclusion(bytes.fromhex(proof["leaf_hash"]), proof["leaf_index"], proof["tree_size"],
                     [bytes.fromhex(p) for p in proof["proof"]], cp.root_hash)
    assert note.startswith(origin + "\n") and "\n\n\u2014 " + origin + " " in note
    # the same head printed twice is the same note (a checkpoint is a pure function of head and key)
    assert metis("receipts", "checkpoint", "--data-dir", data_dir) == note
    named = metis("receipts", "checkpoint", "--data-dir", data_dir, "--origin", "example.com/metis")
    assert open_checkpoint(named, NoteKey.from_public("example.com/metis", key.public_key)).tree_size == cp.tree_size
    with pytest.raises(CheckpointError):  # a different origin is a different log
        open_checkpoint(named, key)
    if shutil.which("go") and GO_NOTE_SRC.is_dir():  # the server's checkpoint through Go's reference code too
        assert request.getfixturevalue("go_note_open")(vkey, note) == (0, note.split("\n\n")[0] + "\n")


@pytest.mark.parametrize("driver", ["sqlite", "postgres"])
def test_cli_checkpoint_of_both_storage_drivers_matches_their_signed_head(driver, tmp_path, request):
    from receipts.log import Entry
    from receipts.store import open_store

    url = request.getfixturevalue("pg_url") if driver == "postgres" else None
    keys = tmp_path / "keys" if url else None
    store = open_store(url, tmp_path / "data", keys)
    store.open()
    try:
        records = store.append_sync([Entry("receipt", "tool_call", "acme", {"i": i}, topic="t", action_id="act_x")
                                     for i in range(9)])
        sth = store.sign_tree_head()
        proof = store.inclusion_proof(records[4].seq, sth)
    finally:
        store.close()
    where = ["--database", url, "--keys-dir", str(keys)] if url else ["--data-dir", str(tmp_path / "data")]
    key = NoteKey.parse(metis("receipts", "checkpoint", *where, "--vkey"))
    cp = open_checkpoint(metis("receipts", "checkpoint", *where), key, origin=key.name)
    assert (cp.tree_size, cp.root_hash.hex()) == (9, sth["root_hash"])
    verify_inclusion(bytes.fromhex(proof["leaf_hash"]), proof["leaf_index"], 9,
                     [bytes.fromhex(p) for p in proof["proof"]], cp.root_hash)


GOPATH = Path("/usr/share/gocode")  # Debian's Go sources
GO_NOTE_SRC = GOPATH / "src" / "golang.org" / "x" / "mod" / "sumdb" / "note"


@pytest.fixture(scope="module")
def go_note_open(tmp_path_factory: pytest.TempPathFactory):
    """Go's reference ``note.Open`` (golang.org/x/mod from Debian's golang-golang-x-mod-dev, GOPATH mode,
    built offline), as a command: (vkey, note) -> (exit code, output)."""
    go = shutil.which("go")
    if go is None or not GO_NOTE_SRC.is_dir():
        pytest.skip("needs Debian's golang-go and golang-golang-x-mod-dev (scripts/test installs them)")
    work = tmp_path_factory.mktemp("gonote")
    binary = work / "go_note_open"
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": str(GOPATH),
           "GOCACHE": str(work / "cache"), "GOFLAGS": ""}
    subprocess.run([go, "build", "-o", str(binary), str(Path(__file__).parent / "data" / "obs" / "go_note_open.go")],
                   check=True, env=env, cwd=work, timeout=300, capture_output=True)

    def run(vkey: str, note: str) -> tuple[int, str]:
        (work / "vkey").write_text(vkey)
        (work / "note").write_text(note)
        out = subprocess.run([str(binary), str(work / "vkey"), str(work / "note")], capture_output=True, text=True,
                             timeout=30)
        return out.returncode, out.stdout

    return run


def test_go_reference_code_opens_our_checkpoint_and_refuses_a_tampered_one(go_note_open):
    key = Ed25519PrivateKey.generate()
    origin = "example.com/metis"
    body = format_checkpoint(origin, 1342, leaf_hash(b"metis"))
    note = sign_note(body, origin, key)
    assert go_note_open(vkey_of(origin, key.public_key()), note) == (0, body)
    assert go_note_open(vkey_of(origin, key.public_key()), note.replace("1342", "1343"))[0] == 1
    other = Ed25519PrivateKey.generate()
    assert go_note_open(vkey_of(origin, other.public_key()), note)[0] == 1  # not signed by that key
