"""Session 29: random head-dim-256 batches with 33-128 packed rows per kv head whose keys fill
the SMs (the `_d256_g64` case: at least 4 x 132 tiles of 64 keys over all requests and kv
heads), bf16 and f16, every page size, ragged batches with empty and one-key requests.
usage: python3 gen_d256.py [SEED] > d256-rand.toml (SEED 29 by default)"""
import random
import sys

r = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 29)
out = []
i = 0
while len(out) < 10:
    ratio = r.choice([3, 4, 5, 6, 7, 8, 12, 16])
    q_len = r.choice([2, 3, 4, 6, 8, 12, 16])
    rows = ratio * q_len
    if not 33 <= rows <= 128:
        continue
    kvh = r.choice([1, 2, 4, 8])
    page = r.choice([1, 3, 8, 16, 24, 32, 64, 128])
    dtype = r.choice(["bf16", "bf16", "f16"])
    if r.random() < 0.4:
        n = r.randint(3, 20)
        lens = [r.choice([0, 1, r.randint(2, 700), r.randint(700, 6000), r.randint(6000, 30000)]) for _ in range(n)]
        shape = "kv_lens = [%s]" % ", ".join(map(str, lens))
        tiles = sum((l + 63) // 64 for l in lens) * kvh
        tag = "rag%d" % n
    else:
        b = r.choice([2, 5, 9, 16, 33, 60])
        L = r.choice([500, 1500, 3000, 7000, 20000])
        shape = "batch = %d\nkv_len = %d" % (b, L)
        tiles = b * ((L + 63) // 64) * kvh
        tag = "b%d-%d" % (b, L)
    # keys that fill the SMs, and at most ~400 MB of K/V
    if tiles < 4 * 132 or tiles * 64 * 2 * 256 * 2 > 400e6:
        continue
    name = "D%02d-d256-g%d-h%d-q%d-p%d-%s-%s" % (i, ratio, kvh, q_len, page, dtype, tag)
    i += 1
    out.append('[[workload]]\nname = "%s"\n%s\nq_len = %d\nq_heads = %d\nkv_heads = %d\nhead_dim = 256\npage_sizes = [%d]\ndtype = "%s"\n'
               % (name, shape, q_len, ratio * kvh, kvh, page, dtype))
print("\n".join(out))
