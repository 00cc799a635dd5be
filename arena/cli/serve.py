"""`arena serve CONFIG`: run a competition server (ladder, submissions, signed results, JSON API)."""

from __future__ import annotations

import importlib.util

import click

from arena.cli import main
from arena.errors import ServerError

SERVER_PACKAGES = ("starlette", "uvicorn")  # the server's extra (pyproject.toml); `make demo` does not install it


def check_server_packages() -> None:
    """ServerError naming what to install when the server's optional packages are missing."""
    missing = [name for name in SERVER_PACKAGES if importlib.util.find_spec(name) is None]
    if missing:
        raise ServerError(f"arena serve needs the server's packages, missing here: {', '.join(missing)}; install them with "
                          "`.venv/bin/pip install -e '.[server]'` (`make setup` installs them too)")


@main.command("serve")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--add-participant", "add", metavar="NAME", default=None,
              help="Create a participant, print its token (shown once) and exit.")
@click.option("--no-sandbox", "no_sandbox", is_flag=True,
              help="Run submitted bots without the sandbox: only for bots you trust; every answer then warns.")
@click.option("--cluster", metavar="ADDRESS", default=None,
              help="Play ladder games on a Dask cluster: tls://HOST:PORT (TLS required), or local:N.")
@click.option("--host", default=None, help="Address to bind (default: the config's, else 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="Port (default: the config's, else 8750).")
@click.option("--tls-cert", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Serve HTTPS with this certificate (PEM; with --tls-key). The sign-in cookie is then Secure.")
@click.option("--tls-key", type=click.Path(dir_okay=False, exists=True), default=None,
              help="The certificate's private key (PEM).")
def serve_command(config: str, add: str | None, no_sandbox: bool, cluster: str | None, host: str | None, port: int | None,
                  tls_cert: str | None, tls_key: str | None) -> None:
    """Run the competition CONFIG: the API on 127.0.0.1, the ladder and the submission checks."""
    if (tls_cert is None) != (tls_key is None):
        raise ServerError("give --tls-cert and --tls-key together (a certificate and its private key, PEM)")
    check_server_packages()
    from arena.ladder.config import load

    conf = load(config)
    if add is not None:
        from arena.ladder.service import add_participant

        token = add_participant(conf, add)
        click.echo(f"participant {add!r} created; its token (shown once, keep it):")
        click.echo(token)
        return
    from arena.tournament.config.cluster import ClusterSpec
    from arena.sandbox.probe import probe

    support = probe()
    if not no_sandbox and not support.sandbox:
        raise ServerError(f"the sandbox cannot run on this machine ({support.reason}); the server will not run "
                          "submitted code without it (--no-sandbox only for bots you trust)")
    spec = None
    if cluster is not None:
        spec = ClusterSpec.parse(cluster)
        if spec.address is not None and not spec.address.startswith("tls://"):
            raise ServerError(f"--cluster {cluster}: a remote scheduler only over TLS (tls://HOST:PORT with Dask's TLS "
                              "security configured): plain Dask TCP runs whatever any client sends")
    from arena.server.app import run
    from arena.ladder.service import Server

    server = Server(conf, sandbox=not no_sandbox, cluster=spec)
    click.echo(f"arena serve: runtimes for built bots: {', '.join(conf.runtimes)}", err=True)
    offered = conf.build.offered()
    click.echo(f"arena serve: languages built from source ({conf.build.limits.describe()}): "
               + ("; ".join(offered) if offered else "none (no toolchain installed, or `build: {languages: []}`)"), err=True)
    run(server, host or conf.host, conf.port if port is None else port,
        (tls_cert, tls_key) if tls_cert and tls_key else None)
