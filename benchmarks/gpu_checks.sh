#!/bin/bash
# The checks that need a CUDA device, in one short script (about 7 minutes): PPO's and expert iteration's learners
# trained on cuda (configs/smoke.yaml, configs/az_smoke.yaml), their checkpoints played in a process that sees no
# CUDA device (as ppo: and az:), and the learners' speed on cuda against cpu (kdenv bench train, kdenv bench
# selfplay with 15 workers, kdenv bench search for the cores' speed). Each step is bounded, and a failure does not
# stop the next. Run from the repository root with the project installed: bash benchmarks/gpu_checks.sh
# (DEV=cpu runs the same steps without a GPU; RUNS=DIR for the run folders, default /tmp/runs; SKIP_BENCH=1 stops
# before the benches).
DEV=${DEV:-cuda}
KD="python3 -m training.cli"
RUNS=${RUNS:-/tmp/runs}
step() { local limit=$1; shift; echo; echo "=== [$(date +%T)] $*"; local t0=$SECONDS; timeout -s INT "$limit" "$@"; echo "=== rc=$? in $((SECONDS - t0)) s"; }
python3 -c 'import torch, numba, numpy, sys; print(sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else "", "numba", numba.__version__, "numpy", numpy.__version__)'
nproc; lscpu | grep -E "Model name"
step 60 python3 -c 'import kdenv.batched.machine, agents.az, training.cli; print("imports ok")'
step 150 $KD train configs/smoke.yaml --set ppo.device=$DEV --set runs_dir=$RUNS --set eval.workers=4
PPO=$(ls -d $RUNS/smoke-*/ | tail -1)
ls "$PPO"
step 60 env CUDA_VISIBLE_DEVICES= $KD tournament --agents ppo:${PPO}last.zip fg fg fg --players 4 --rules middle_kingdom,harmony --games 4 --workers 1 --out /tmp/t1 --no-progress
step 150 $KD train configs/az_smoke.yaml --set device=$DEV --set runs_dir=$RUNS
AZ=$(ls -d $RUNS/az_smoke-*/ | tail -1)
ls "$AZ"; head -3 "${AZ}eval.jsonl"
step 90 env CUDA_VISIBLE_DEVICES= $KD tournament --agents ppo:${AZ}last.zip az:${AZ}last.zip,simulations=8 fg fg --players 4 --rules middle_kingdom,harmony --games 4 --workers 1 --out /tmp/t2 --no-progress
[ -n "$SKIP_BENCH" ] && exit 0
python3 -c 'import torch; print("torch threads", torch.get_num_threads())'
step 45 $KD bench train --seconds 15 --gains --threads 2 --device cpu
step 45 $KD bench train --seconds 15 --gains --threads 2 --device $DEV
step 45 $KD bench train --seconds 15 --gains --threads 2 --device $DEV --channels 64 --blocks 6 --hidden 256
step 80 $KD bench selfplay --simulations 16 --seconds 8 --no-ray --workers 15 --games 240 --device $DEV
step 90 $KD bench selfplay --simulations 32 --rollout fg --opponent fg --considered 4 --seconds 8 --no-ray --workers 15 --games 240 --device $DEV
step 60 $KD bench search --positions 3 --batches 16 64
echo "=== done [$(date +%T)]"
