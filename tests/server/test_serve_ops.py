"""Running `arena serve` for weeks (issue 36, items 5-7): one server per data folder; `arena submit` through
a server restart, and `--follow N` afterwards; HTTPS with uvicorn's own TLS and a `Secure` cookie."""

from __future__ import annotations

import datetime
import ipaddress
import signal
import ssl
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.server.bots import ROOT
from tests.server.server import ADMIN, ServerProcess, sign_in
from tests.server.test_submit_cli import ARENA, arena, good_folder

pytestmark = [pytest.mark.process, pytest.mark.sandbox]


def test_a_second_server_on_the_same_data_is_refused_in_one_line(tmp_path: Path) -> None:
    first = ServerProcess(tmp_path).start()
    try:
        second = ServerProcess(tmp_path)  # the same config and data, another port
        done = subprocess.run([*ARENA, "serve", str(second.config), "--port", str(second.port)], capture_output=True,
                              text=True, timeout=120, env={"ARENA_ADMIN_TOKEN": ADMIN, "PATH": "/usr/bin:/bin"}, cwd=ROOT)
        assert done.returncode != 0
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and "data in use: another arena serve (pid" in lines[0], done.stderr
        assert "Traceback" not in done.stderr
        assert first.get("/api/v1").status_code == 200  # the first goes on
    finally:
        first.stop(signal.SIGKILL)
    ServerProcess(tmp_path).start().stop()  # control: a lock dies with its holder (even SIGKILL); the next start is fine


def test_submit_rides_through_a_server_restart_and_follow_later(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path).start()
    token = server.add("carol")
    env = {"ARENA_SERVER": server.url, "ARENA_TOKEN": token}
    proc = subprocess.Popen([*ARENA, "submit", str(good_folder(tmp_path)), "--games", "0", "--retry-timeout", "90"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**{k: v for k, v in __import__("os").environ.items() if not k.startswith("ARENA_")}, **env})
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        if line.startswith("packed "):  # a folder: its packed size and file count come first
            line = proc.stderr.readline()
        assert "uploaded" in line and "arena submit --follow 1" in line, line
        server.stop(signal.SIGKILL)  # the check is under way (or waiting): the server dies
        time.sleep(4)
        server.start()  # same port, same data
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    try:
        assert proc.returncode == 0, out + err
        assert "does not answer" in err and "trying again" in err
        assert "passed:" in out
        later = arena("submit", "--follow", "1", "--games", "0", env=env)
        assert later.returncode == 0 and "passed:" in later.stdout, later.stdout + later.stderr
    finally:
        server.stop()
    # Control: with no retrying, a server that does not answer ends the command, which says how to follow later.
    gone = arena("submit", "--follow", "1", "--games", "0", "--retry-timeout", "0", env=env)
    assert gone.returncode != 0 and "arena submit --follow 1" in gone.stderr, gone.stderr
    assert "set --server" not in gone.stderr  # not blamed on a wrong address


def _self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def test_https_with_a_secure_session_cookie(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    server = ServerProcess(tmp_path, extra=["--tls-cert", str(cert), "--tls-key", str(key)])
    server.url = server.url.replace("http://", "https://")
    server.verify = ssl.create_default_context(cafile=str(cert))
    server.start()
    try:
        assert server.get("/api/v1").json()["name"] == "srvtest"
        with pytest.raises(httpx.HTTPError):  # plain HTTP gets nothing on the TLS port
            httpx.get(server.url.replace("https://", "http://") + "/api/v1", timeout=5)
        with httpx.Client(base_url=server.url, verify=server.verify) as web:
            signed = sign_in(web, ADMIN, server.url)
            cookie = signed.headers.get("set-cookie", "")
            assert "arena_session=" in cookie and "Secure" in cookie and "HttpOnly" in cookie, (signed.status_code, cookie)
    finally:
        server.stop()
    # Control: the same sign-in over plain HTTP sets the cookie without `Secure`.
    (tmp_path / "plain").mkdir()
    plain = ServerProcess(tmp_path / "plain").start()
    try:
        with httpx.Client(base_url=plain.url) as web:
            cookie = sign_in(web, ADMIN, plain.url).headers.get("set-cookie", "")
            assert "arena_session=" in cookie and "Secure" not in cookie, cookie
    finally:
        plain.stop()
