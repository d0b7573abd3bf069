"""The `precedente` command: the Typer app, every command and group in the order `--help` lists them, and main(),
which turns every failure into one line and an exit status."""

import os
import sys
import traceback

import httpx
import pydantic
import typer
from typer._click import exceptions as click_errors  # typer's own click: what it raises

from precedente import api_errors
from precedente.cli.accounts import audit_command, keys_app, password_command, users_app
from precedente.cli.evaluate import eval_command
from precedente.cli.folders import pastas_app
from precedente.cli.ingest import INGEST_EPILOG, ingest, watch_command
from precedente.cli.panel import panel_app
from precedente.cli.research import alerts_app, history_app, saved_app
from precedente.cli.review import review_app
from precedente.cli.search import SEARCH_EPILOG, search
from precedente.cli.status import refused_command, status_command
from precedente.cli.thesaurus import thesaurus_app
from precedente.cli.tools import docs_command, inspect_command
from precedente.cli.up import migrate_command, reembed, serve, topics, up
from precedente.cli.whoami import whoami

app = typer.Typer(
    help="Precedente: busca semântica na base de conhecimento do escritório.",
    epilog=api_errors.exit_codes_help()
    + "\n\nOs comandos que chamam a API agem como PRECEDENTE_API_KEY, senão como a chave de administrador que o"
    " `precedente up` guarda na pasta de dados (PRECEDENTE_DATA_DIR, padrão ./.precedente); `precedente whoami` diz"
    " qual, e seus grupos. --api URL (ou PRECEDENTE_API_URL) os aponta para outra instalação.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)
app.add_typer(review_app, name="review")
app.add_typer(users_app, name="users")
app.add_typer(keys_app, name="keys")
app.add_typer(panel_app, name="panel")
app.add_typer(history_app, name="historico")
app.add_typer(saved_app, name="pesquisas")
app.add_typer(alerts_app, name="alertas")
app.add_typer(pastas_app, name="pastas")
app.add_typer(thesaurus_app, name="tesauro")

app.command()(up)
app.command()(serve)
app.command("migrate")(migrate_command)
app.command()(reembed)
app.command()(topics)
app.command(epilog=INGEST_EPILOG)(ingest)
app.command(epilog=SEARCH_EPILOG)(search)
app.command()(whoami)
app.command("inspect")(inspect_command)
app.command("eval")(eval_command)
app.command("watch")(watch_command)
app.command("docs")(docs_command)
app.command("status")(status_command)
app.command("recusadas")(refused_command)
app.command("audit")(audit_command)
app.command("password")(password_command)


def _configuration_error(err: pydantic.ValidationError) -> str:
    """ "PRECEDENTE_API_PORT: Input should be a valid integer": the variable to fix, not pydantic's report."""
    problems = [
        f"PRECEDENTE_{'_'.join(map(str, e['loc'])).upper()}: {e['msg']}" if e.get("loc") else e["msg"]
        for e in err.errors()
    ]
    return f"invalid configuration: {'; '.join(problems)} (docs/configuration.md lists the settings)"


def main(args: list[str] | None = None) -> None:
    """Every failure a person meets is one line on stderr, `precedente: ...`, with the fix where there is one, and
    an exit status of api_errors.EXIT_CODES; never a traceback (PRECEDENTE_DEBUG=1 prints one for a bug)."""
    command = typer.main.get_command(app)
    try:
        status = command.main(args=args, prog_name="precedente", standalone_mode=False)
    except click_errors.NoArgsIsHelpError as err:
        err.show()
        status = api_errors.EXIT_USAGE
    except click_errors.UsageError as err:
        hint = f" (see `{err.ctx.command_path} --help`)" if err.ctx is not None else ""
        path = f"{err.ctx.command_path.partition(' ')[2]}: " if err.ctx is not None and err.ctx.parent else ""
        api_errors.fail(f"{path}{' '.join(err.format_message().split())}{hint}", api_errors.EXIT_USAGE)
    except click_errors.ClickException as err:
        api_errors.fail(" ".join(err.format_message().split()), err.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        api_errors.fail("interrupted", api_errors.EXIT_INTERRUPTED)
    except httpx.HTTPError as err:
        api_errors.fail(api_errors.explain(err))
    except pydantic.ValidationError as err:
        api_errors.fail(_configuration_error(err), api_errors.EXIT_USAGE)
    except OSError as err:
        where = f" {err.filename}" if err.filename else ""
        api_errors.fail(f"cannot use{where}: {err.strerror or err}")
    except Exception as err:  # noqa: BLE001 - a bug still reaches a person as one line, with how to report it
        if os.environ.get("PRECEDENTE_DEBUG"):
            traceback.print_exc()
        api_errors.fail(
            f"unexpected error: {type(err).__name__}: {' '.join(str(err).split())[:300]} (a bug: run it again with"
            " PRECEDENTE_DEBUG=1 for the traceback, and report it)"
        )
    sys.exit(status if isinstance(status, int) else 0)
