#!/usr/bin/env bash
# Issue 31's table with the search players on all 3,200 fights (400 held-out maps x dice seeds 1-4 x 2 sides),
# each beside the ruleset's shipped network (`ppo`) in the same call, so their difference is paired.
# A search player's 3,200 fights take 1-5 CPU hours, so each call writes a fights' log
# (`tactica evaluate --fights-log`): run this script again after a stop and every call goes on where it was;
# a call whose JSON is written is skipped. Results: runs/tables/<ruleset>-<player>.json, then
#   python experiments/player_table.py runs/tables/cortex-planner.json --ruleset cortex --vs planner
# and, while a call is still going, its log gives the table of the maps finished so far:
#   python experiments/player_table.py runs/tables/cortex_hu-selective.jsonl --ruleset cortex_hu
# (docs/results.md, "Every player on the same fights").
#
#   nohup bash experiments/search_tables.sh > runs/tables/search.log 2>&1 &
set -euo pipefail
cd "$(dirname "$0")/.."
out=${TABLES_DIR:-runs/tables}
workers=${WORKERS:-2}
mkdir -p "$out"

table() {  # ruleset, players (comma-separated), name, reference (default tactical), evaluate command, logs to reuse
  local json="$out/$1-$3.json" ref="${4:-tactical}" cmd="${5:-python -m tactica evaluate}"
  local reuse=() log
  # a 100-map pilot's fights (kept in experiments/results) are the first quarter of the 400-map run's; another
  # table's log gives the fights of the players it shares with this call
  for log in "${@:6}"; do reuse+=(--reuse-log "$log"); done
  if [ -s "$json" ]; then
    echo "$json: done"
    return
  fi
  echo "$json: $2 against $ref, $(date -u +%FT%TZ)"
  $cmd --policies "$2" --against "$ref" --ruleset "$1" --generated 400 --episodes 2 \
    --seed 1 --seed 2 --seed 3 --seed 4 --workers "$workers" --json --fights-log "$out/$1-$3.jsonl" "${reuse[@]}" > "$json.part"
  mv "$json.part" "$json"
}

table cortex planner,ppo planner              # cortex's best (about 2 CPU s a fight)
table cortex_hu selective,ppo selective       # cortex_hu's best (about 0.7)
# the goal's head to head: the shipped network against the strongest search player, on the same 3,200 fights
table cortex_hu ppo h2h-planner-bold planner-bold
# the goal's second half in cortex_hu: does the network beat `tactical` by as much as `planner-bold` does?
table cortex_hu planner-bold,ppo planner-bold
# `selective` searching where the network's top two are less than 0.5 apart (not 0.2): level with `planner-bold` on
# the first 100 maps at `selective`'s median decision time (docs/results.md, cortex_hu, Searching at more of the
# network's decisions); on all 3,200 (2026-12-06) 64.5%, +1.3 over `selective`: the candidate for cortex_hu's `best`
table cortex_hu sel50 sel50 tactical "python experiments/selective_margin.py"
table cybergeneration ppo h2h-planner-bold planner-bold
table cybergeneration planner-bold,ppo planner-bold
table metalface planner-bold,ppo planner-bold
# last: in cortex the network is 6.1 points below `planner` against `tactical` on these fights (88-111 head to head
# on 200), so this head to head only sizes a gap already known
table cortex ppo h2h-planner planner
# cybergeneration's `best` (`planner-net-bold`, as `sel100`) beside the network: 67.5% of all 3,200 (2026-12-06,
# tenth session). All 6,400 fights are kept in experiments/results: this call takes them and plays none
table cybergeneration sel100,ppo sel100 tactical "python experiments/selective_margin.py" \
  experiments/results/table-cybergeneration-sel100.jsonl.gz
# metalface's `best` since 2026-12-07 (`planner-net-bold`, as `sel100`) beside the network: 73.2% of all 3,200, +6.5
# over the network (2026-12-07, eleventh session; 83 minutes on 2 workers after the 100-map pilot's 1,600 fights).
# All 6,400 fights are kept in experiments/results: this call takes them and plays none
table metalface sel100,ppo sel100 tactical "python experiments/selective_margin.py" \
  experiments/results/table-metalface-sel100.jsonl.gz
# cortex_hu's `best` since 2026-12-07 (`planner-net-bold`, as `sel100`) beside the `best` before it,
# `selective-wide` (`sel50`): 67.5% against 64.5% of all 3,200, +3.0 (paired 95% 1.6-4.4; docs/results.md, cortex_hu,
# The search at every decision on all 3,200). 2,400 fights played (about 2.5 hours on 2 workers over three sessions);
# all 6,400 are kept in experiments/results: this call takes them and plays none
table cortex_hu sel100,sel50 sel100 tactical "python experiments/selective_margin.py" \
  experiments/results/table-cortex_hu-sel100.jsonl.gz
