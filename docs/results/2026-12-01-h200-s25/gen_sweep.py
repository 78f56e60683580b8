"""Session 25: random decode shapes none of W1-W7, X1-X12 or the session-21 sweep covered,
for `ferroflash check` (correctness) and a side by side with fi_decode_tc where its modules
are prebuilt (bf16 KV at d64/128/256, e4m3/e5m2 KV at d128). Seeded: the same file each run.
usage: python3 gen_sweep.py [SEED] > sweep25.toml (SEED 25 by default; session 28 drew
docs/results/2026-12-02-h200-s28/sweep28.toml with SEED 28)"""
import random
import sys

r = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 25)
ratios = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16]
pages = [1, 3, 8, 16, 24, 32, 64, 128]
out = []
for i in range(40):
    d = r.choice([64, 128, 128, 256])
    if d == 128:
        dtype = r.choice(["bf16", "bf16", "f16", "bf16-q/e4m3-kv", "bf16-q/e5m2-kv", "f16-q/e4m3-kv", "e4m3"])
    else:
        dtype = r.choice(["bf16", "f16", "bf16-q/e4m3-kv"])
    ratio = r.choice(ratios)
    kvh = r.choice([1, 2, 4, 8]) if ratio <= 8 else r.choice([1, 2, 4])
    q_len = r.choice([1, 1, 1, 2, 3, 4, 8, 16])
    page = r.choice(pages)
    ragged = r.random() < 0.35
    if ragged:
        n = r.randint(2, 24)
        lens = [r.choice([0, 1, r.randint(1, 300), r.randint(300, 5000), r.randint(5000, 40000)]) for _ in range(n)]
        if max(lens) == 0:
            lens[0] = 777
        shape = "kv_lens = [%s]" % ", ".join(map(str, lens))
        tag = "rag%d" % n
    else:
        b = r.choice([1, 2, 3, 5, 8, 13, 24, 40, 64, 100])
        budget = 300e6 if dtype.startswith("bf16") and "kv" not in dtype or dtype in ("bf16", "f16") else 150e6
        per_tok = 2 * kvh * d * (1 if ("e4m3" in dtype or "e5m2" in dtype) else 2)
        max_len = int(budget / (b * per_tok))
        L = max(1, min(r.choice([97, 1000, 2047, 4096, 6000, 12345, 33000, 70000]), max_len))
        shape = "batch = %d\nkv_len = %d" % (b, L)
        tag = "b%d-%d" % (b, L)
    name = "R%02d-d%d-g%d-h%d-q%d-p%d-%s-%s" % (i, d, ratio, kvh, q_len, page, dtype.replace("/", "").replace("-", ""), tag)
    out.append('[[workload]]\nname = "%s"\n%s\nq_len = %d\nq_heads = %d\nkv_heads = %d\nhead_dim = %d\npage_sizes = [%d]\ndtype = "%s"\n'
               % (name, shape, q_len, ratio * kvh, kvh, d, page, dtype))
print("\n".join(out))
