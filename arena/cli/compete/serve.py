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


# The organiser's subcommands (`arena serve CONFIG SUBCOMMAND ...`), each module beside this one attaching its
# commands to `serve_command`; imported only when a subcommand is asked for.
SUBCOMMAND_MODULES: tuple[str, ...] = ()
SUBCOMMAND_MODULES += ("phase", "accounts", "backup")  # phases, a class's accounts, backup and restore
SUBCOMMAND_MODULES += ("final", "publish")  # the final and its published results


class ServeGroup(click.Group):
    """`arena serve CONFIG` runs the server; `arena serve CONFIG SUBCOMMAND` runs one organiser's command on
    the same config (the subcommand gets the loaded `ServerConfig` as `ctx.obj`)."""

    def _load_all(self) -> None:
        import importlib

        for name in SUBCOMMAND_MODULES:
            importlib.import_module(f"arena.cli.compete.{name}")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """The server's options may come after CONFIG (`arena serve c.yaml --port 9000`), as they did when
        `serve` was a plain command: they are moved in front of it; the subcommand's own arguments stay its own."""
        takes_value = {opt for p in self.params if isinstance(p, click.Option) and not p.is_flag for opt in p.opts}
        front: list[str] = []
        rest: list[str] = []
        i = 0
        while i < len(args):
            arg = args[i]
            if rest and not arg.startswith("-"):  # CONFIG seen: this is the subcommand, the rest is its own
                rest.extend(args[i:])
                break
            if arg.startswith("-") and arg != "-":
                front.append(arg)
                if arg in takes_value and i + 1 < len(args):
                    i += 1
                    front.append(args[i])
            else:
                rest.append(arg)
            i += 1
        return super().parse_args(ctx, front + rest)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            self._load_all()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_all()
        return super().list_commands(ctx)


@main.group("serve", cls=ServeGroup, invoke_without_command=True)
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
@click.pass_context
def serve_command(ctx: click.Context, config: str, add: str | None, no_sandbox: bool, cluster: str | None, host: str | None,
                  port: int | None, tls_cert: str | None, tls_key: str | None) -> None:
    """Run the competition CONFIG: the API on 127.0.0.1, the ladder and the submission checks.
    With a SUBCOMMAND, run that organiser's command on CONFIG instead (`arena serve CONFIG --help` lists them)."""
    if (tls_cert is None) != (tls_key is None):
        raise ServerError("give --tls-cert and --tls-key together (a certificate and its private key, PEM)")
    check_server_packages()
    from arena.ladder.config import load

    conf = load(config)
    if ctx.invoked_subcommand is not None:
        ctx.obj = conf
        return
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
    click.echo(f"arena serve: disk a day: {server.competition.disk_a_day()}", err=True)
    run(server, host or conf.host, conf.port if port is None else port,
        (tls_cert, tls_key) if tls_cert and tls_key else None)
