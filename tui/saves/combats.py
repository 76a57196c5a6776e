"""Combat entries: a resolved combat and the markers its result places, and an amendment
(a card played after the roll) checked against the combat it reads again.

Headless: never imports textual or rich.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tui.engine import registry
from tui.engine.units import SIDES, Obligation, UnitState, obligations, open_loss, settle
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
    units: Mapping[str, Sequence[str]] | None = None,
    takes: Mapping[str, Mapping[str, int]] | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """Log one resolved combat; markers the result places (No-entry, DG, exploitation,
    engaged) go on `target` (or per side on `targets`), or on "(unspecified)". `who`
    defaults to the OS user. Returns the entry written.

    `amends` names an earlier combat this one reads again (a card played after its roll):
    it must be a combat of the same ruleset in this save, and this combat keeps its dice,
    sources included. Amending the last entry reads only the ends of the file; an older
    one reads it whole.

    `units` names the game's units that fought, per side ("attacker", "defender"): what the
    result does to them is applied from the game's units under the lock (`losses`), and
    what their owner chooses is left open (`open_losses`) unless `takes` chose it (per
    side, unit -> steps or factors; a choice that does not fit the result leaves the loss
    open, said in `notices`)."""
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
        applied: dict[str, Any] = {}
        if named:
            assert game is not None
            applied = results_applied(
                game, named, record["effects"], _retreated(combat), takes or {}, notices
            )
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
        } | applied

    named = {side: list(units.get(side, ())) for side in SIDES} if units else None
    if named is not None and not any(named.values()):
        named = None
    # Units named: their losses are applied from the game's units (the state kept beside the
    # save, so still no read of the log).
    return _append(path, make, whole=named is not None, who=who, notices=notices)


def _retreated(combat: CombatInput) -> tuple[str, ...]:
    """The sides that took their option as a retreat before the result was applied (a
    Day/Night attacker retreating on A1, A1X, A2X)."""
    return ("attacker",) if getattr(combat, "attacker_retreats", False) else ()


def check_combat_units(game: Game, named: Mapping[str, Sequence[str]]) -> None:
    """Refuse a unit named for a combat that is not in the game, is eliminated, is named
    twice, or is not of its side (a combat's attackers are one side's units, its defenders
    another's): SaveError, one line naming it."""
    sides: dict[str, str] = {}
    seen: set[str] = set()
    for side in SIDES:
        for name in named.get(side, ()):
            flag = f"--{side}-unit"
            unit = game.units.get(name)
            if unit is None:
                listed = ", ".join(list(game.units)[:8]) or "none"
                more = " ..." if len(game.units) > 8 else ""
                raise SaveError(
                    f"{flag} {name!r}: no such unit in the game; its units: {listed}{more}"
                )
            if not unit.alive:
                raise SaveError(f"{flag} {name!r}: eliminated; only units in play fight")
            if name in seen:
                raise SaveError(f"{flag} {name!r}: named twice; each unit fights once in a combat")
            seen.add(name)
            other = "defender" if side == "attacker" else "attacker"
            if sides.get(other) == unit.side:
                raise SaveError(
                    f"{flag} {name!r}: a unit of {unit.side}, the {other}'s side; the "
                    f"{side}s are another side's units"
                )
            if sides.setdefault(side, unit.side) != unit.side:
                raise SaveError(
                    f"{flag} {name!r}: a unit of {unit.side}; the {side}s are {sides[side]}'s units"
                )


def results_applied(
    game: Game,
    named: Mapping[str, Sequence[str]],
    effects: Mapping[str, Any],
    retreated: Sequence[str] = (),
    takes: Mapping[str, Mapping[str, int]] | None = None,
    notices: list[str] | None = None,
) -> dict[str, Any]:
    """The fields a combat entry gets from the result's effects on the game's units that
    fought: `units` (their names, per side), `losses` (where the rules say which unit, or
    the owner chose: `takes`) and `open_losses` (what the owner still chooses)."""
    check_combat_units(game, named)
    losses: list[dict[str, Any]] = []
    still: list[dict[str, Any]] = []
    takes = takes or {}
    # The units as each loss leaves them: a later loss of the same result (an option after
    # the steps) reads what the earlier left.
    working = {n: replace(game.units[n]) for side in SIDES for n in named.get(side, ())}
    for side in SIDES:
        owed = [o for o in obligations(effects, named, retreated) if o.side == side]
        chosen = dict(takes.get(side) or {})
        fits = _fit(owed, chosen, working, side, notices) if chosen else None
        for number, owing in enumerate(owed):
            found = fits[number] if fits is not None else settle(owing, working)
            if found is None:
                still.append(open_loss(owing))
            else:
                losses += found
                _take(working, found)
    out: dict[str, Any] = {"units": {side: list(named.get(side, ())) for side in SIDES}}
    if losses:
        out["losses"] = _merged(losses)
    if still:
        out["open_losses"] = still
    return out


def _take(units: Mapping[str, UnitState], losses: Sequence[Mapping[str, Any]]) -> None:
    for loss in losses:
        unit = units[str(loss["unit"])]
        unit.steps_lost += int(loss.get("steps", 0))
        unit.factors_lost += int(loss.get("factors", 0))
        if loss.get("eliminated"):
            unit.eliminated = True


def _fit(
    owed: Sequence[Obligation],
    chosen: dict[str, int],
    units: Mapping[str, UnitState],
    side: str,
    notices: list[str] | None,
) -> list[list[dict[str, Any]] | None] | None:
    """The owner's choice (`chosen`: unit -> amount) split over a side's obligations in
    order (the steps the result takes, then its option), or None, said in `notices`, when
    it does not fit the result."""
    out: list[list[dict[str, Any]] | None] = []
    left = dict(chosen)
    units = {n: replace(u) for n, u in units.items()}  # a choice refused leaves them as they were
    if all(o.what == "eliminated" for o in owed):
        if notices is not None:
            notices.append(
                f"--{side}-takes not used: the result leaves the {side} no loss to choose"
            )
        return None
    try:
        for owing in owed:
            if owing.what == "eliminated":
                out.append(settle(owing, units))
                continue
            if owing.what == "option":
                part, left = left, {}
            else:
                part = {}
                need = owing.amount
                for name in list(left):
                    take = min(need, left[name])
                    if take:
                        part[name] = take
                        left[name] -= take
                        need -= take
                left = {n: a for n, a in left.items() if a}
            found = settle(owing, units, part)
            out.append(found)
            _take(units, found or ())
        if any(left.values()):
            raise ValueError(
                f"{sum(left.values())} more than the result takes from the {side}'s units"
            )
    except ValueError as err:
        if notices is not None:
            notices.append(f"--{side}-takes not used ({err}): the {side}'s loss is left open")
        return None
    return out


def _merged(losses: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One loss per unit: a unit losing steps to a result and to its option loses both."""
    by_unit: dict[str, dict[str, Any]] = {}
    for loss in losses:
        held = by_unit.setdefault(str(loss["unit"]), {"unit": loss["unit"]})
        for key in ("steps", "factors"):
            if key in loss:
                held[key] = held.get(key, 0) + int(loss[key])
        if loss.get("eliminated"):
            held["eliminated"] = True
    return list(by_unit.values())


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
