"""Generate protocols/schema/messages.schema.json from protocols/messages.py.

python -m protocols.gen_schema          # rewrite the checked-in schema
"""

from __future__ import annotations

import functools
import json
import operator
from pathlib import Path
from typing import Any

import msgspec

from protocols.messages import Act, Action, Bye, Error, GameOver, GameStart, Hello, Welcome

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "messages.schema.json"


def observation_types() -> dict[str, type[Any]]:
    """The observation Struct of each built-in variant, by variant name (third-party variants
    are left out, so that the checked-in schema does not depend on what is installed)."""
    from arena.variants import all_variants

    return {
        name: variant.observation_type
        for name, variant in all_variants().items()
        if variant.game is not None and variant.game.__module__.startswith("arena.")
    }


def schema_text() -> str:
    """The messages; each variant's observation (the ``observation`` of ``game_start``,
    ``act`` and ``game_over``) is in ``$defs``, named for each variant by ``observations``."""
    types = observation_types()
    # The messages as declared (their observation generic), so the $defs keep their names.
    messages: tuple[type[Any], ...] = (Hello, Welcome, GameStart, Act, Action, Error, GameOver, Bye)
    any_message = functools.reduce(operator.or_, messages)
    (schema, *_), components = msgspec.json.schema_components(
        [any_message, *dict.fromkeys(types.values())]
    )
    for message in ("GameStart", "Act", "GameOver"):
        components[message]["properties"]["observation"] = {
            "description": "the variant's observation: the $defs entry 'observations' names",
            "type": "object",
        }
    schema["$defs"] = components
    schema["observations"] = {
        name: {"$ref": f"#/$defs/{kind.__name__}"} for name, kind in types.items()
    }
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "ttr-arena protocol messages"
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    SCHEMA_PATH.write_text(schema_text())
    print("wrote", SCHEMA_PATH)
