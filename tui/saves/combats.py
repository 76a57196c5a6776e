"""Combat entries: a resolved combat and the markers its result places, and an amendment
(a card played after the roll) checked against the combat it reads again.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.engine import registry
from tui.saves.appending import _append, _NeedsGame
from tui.saves.checking import (
    _check_ruleset_in_play,
    _check_text,
)
from tui.saves.encoding import _without_none
from tui.saves.errors import SaveError
from tui.saves.replay import Game, canonical_kind

if TYPE_CHECKING:
    from tui.engine.combat import CombatInput, Outcome


UNSPECIFIED_TARGET = "(unspecified)"


def _combat_markers(
    seq: int, outcome: Outcome, target: str | None, targets: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """The markers a result places. A marker for one side goes on that side's target when
    `targets` names it; one for both sides goes on each named side's target."""
    placed: list[dict[str, Any]] = []
    targets = targets or {}
    for given in outcome.effects.get("markers") or []:
        given = dict(given)
        kind = str(given.pop("kind"))
        try:
            kind = canonical_kind(kind)
        except SaveError:
            pass  # a kind the engine knows and this list does not yet: keep it as given
        turns = given.pop("turns", None)
        side = given.pop("side", None)
        # A marker the engine places on one named unit (OCS) goes on that unit.
        unit = given.pop("target", None)
        # Big Boom units gone astray strike the hex one step from the target.
        astray = given.pop("astray", None)
        extra = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in given.items())
        sides = [s for s in ("attacker", "defender") if s in targets and side in (s, "both")]
        places: list[tuple[str | None, str | None]]
        places = [(targets[s], s) for s in sides] or [(target, side)]
        for where, who in [(unit, side)] if unit else places:
            where = where or UNSPECIFIED_TARGET
            if astray:
                where = f"one hex {astray} of {where}"
            placed.append(
                {
                    "id": f"{seq}.{len(placed) + 1}",
                    "kind": kind,
                    "target": where,
                    "side": who,
                    "turns": turns,
                    "note": extra or None,
                }
            )
    return placed


def append_combat(
    path: Path,
    combat: CombatInput,
    outcome: Outcome,
    note: str | None = None,
    *,
    target: str | None = None,
    targets: dict[str, str] | None = None,
    who: str | None = None,
    amends: int | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Log one resolved combat; markers the result places (No-entry, DG, exploitation,
    engaged) go on `target` (or per side on `targets`), or on "(unspecified)". `who`
    defaults to the OS user. Returns the entry written.

    `amends` names an earlier combat this one reads again (a card played after its roll):
    it must be a combat of the same ruleset in this save, and this combat keeps its dice,
    sources included. Amending the last entry reads only the ends of the file; an older
    one reads it whole."""
    if note is not None:
        _check_text("note", note)
    if target is not None:
        _check_text("target", target, allow_empty=False)
    for where in (targets or {}).values():
        _check_text("target", where, allow_empty=False)
    record = outcome.to_dict()
    if not record.get("inputs"):
        record["inputs"] = combat.to_dict()

    if amends is not None and (type(amends) is not int or amends < 1):
        raise SaveError(f"amends must be the number of an earlier combat entry, not {amends!r}")

    def make(
        header: dict[str, Any], last: dict[str, Any] | None, game: Game | None
    ) -> dict[str, Any]:
        _check_ruleset_in_play(header, combat.ruleset)
        seq = (last["seq"] if last else 0) + 1
        if amends is not None:
            _check_amends(path, amends, record, last, game)
        return {
            "kind": "combat",
            "ruleset": record["ruleset"],
            "amends": amends,
            "note": note,
            "target": target,
            "inputs": record["inputs"],
            "dice": record["dice"],
            "attack_total": record["attack_total"],
            "defense_total": record["defense_total"],
            "odds": record["odds"],
            "odds_column": record["odds_column"],
            "column": record["column"],
            "roll": record["roll"],
            "cell": record["cell"],
            "effects": record["effects"],
            "explanation": record["explanation"],
            "trace": record["trace"],
            "markers": _combat_markers(seq, outcome, target, targets) or None,
        }

    return _append(path, make, who=who, notices=notices)


def _check_amends(
    path: Path, seq: int, record: dict[str, Any], last: dict[str, Any] | None, game: Game | None
) -> None:
    """Refuse an amendment of anything but an earlier combat of the same ruleset, or one
    whose dice are not that combat's. Raises _NeedsGame when the entry is not the last and
    `game` (the log, or the entries it holds) is not at hand."""
    if last is not None and last["seq"] == seq:
        amended: dict[str, Any] | None = last
    elif game is None:
        raise _NeedsGame(seq)
    else:
        amended = next((e for e in game.entries if e["seq"] == seq), None)
    if amended is None:
        there = f"the last is entry {last['seq']}" if last else "the log is empty"
        raise SaveError(f"{path}: not saved: amends {seq}, but there is no entry {seq} ({there})")
    if amended["kind"] != "combat":
        raise SaveError(
            f"{path}: not saved: amends {seq}, but entry {seq} is a {amended['kind']} entry, "
            "not a combat"
        )
    if amended["ruleset"] != record["ruleset"]:
        raise SaveError(
            f"{path}: not saved: amends {seq}, a {amended['ruleset']} combat, "
            f"with a {record['ruleset']} one"
        )
    if _without_none(record["dice"]) != amended.get("dice", []):
        raise SaveError(
            f"{path}: not saved: amends {seq} with other dice ({_dice_words(record['dice'])}) "
            f"than its own ({_dice_words(amended.get('dice', []))}); an amendment keeps "
            "the roll it reads again"
        )
    later = [] if game is None else [e for e in game.entries if e["seq"] > seq]
    closed = registry.get(record["ruleset"]).card_closed(amended, later)
    if closed is not None:
        raise SaveError(
            f"{path}: not saved: amends {seq}, but {closed}: a card after the roll is "
            "played on the game's last combat, before the next combat or turn"
        )


def _dice_words(dice: list[dict[str, Any]]) -> str:
    return (
        ", ".join(
            f"{die.get('dice')} {'+'.join(map(str, die.get('values', [])))} {die.get('source')}"
            for die in dice
        )
        or "none"
    )
