"""Session 62: random decode shapes at the head dims changes 135-141 added (padded 16-bit
multiples of 16 up to 256; fp8 K/V at 80-112 and 144-240), beside 64/128/256, for
`ferroflash check` and `bench` (no peer runs these head dims). Seeded: the same file each run.
usage: python3 gen_padded.py [SEED] > padded62.toml (SEED 62 by default)"""
import random
import sys

r = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 62)
ratios = [1, 2, 3, 4, 5, 6, 7, 8, 12, 16]
pages = [1, 3, 8, 16, 24, 32, 64, 128]
out = []
for i in range(40):
    fp8 = r.random() < 0.45
    if fp8:
        d = r.choice([80, 96, 112, 144, 160, 176, 192, 208, 224, 240, 64, 128, 256])
        dtype = r.choice(["bf16-q/e4m3-kv", "bf16-q/e5m2-kv", "f16-q/e4m3-kv"])
    else:
        d = r.choice([16, 32, 48, 80, 96, 112, 144, 160, 192, 224, 240, 64, 128, 256])
        dtype = r.choice(["bf16", "bf16", "f16"])
    ratio = r.choice(ratios)
    kvh = r.choice([1, 2, 4, 8]) if ratio <= 8 else r.choice([1, 2, 4])
    q_len = r.choice([1, 1, 1, 2, 3, 4, 8, 16])
    page = r.choice(pages)
    if r.random() < 0.35:
        n = r.randint(2, 24)
        lens = [r.choice([0, 1, r.randint(1, 300), r.randint(300, 5000), r.randint(5000, 40000)]) for _ in range(n)]
        if max(lens) == 0:
            lens[0] = 777
        shape = "kv_lens = [%s]" % ", ".join(map(str, lens))
        tag = "rag%d" % n
    else:
        b = r.choice([1, 2, 3, 5, 8, 13, 24, 40, 64, 100])
        per_tok = 2 * kvh * d * (1 if fp8 else 2)
        max_len = int(150e6 / (b * per_tok))
        L = max(1, min(r.choice([97, 1000, 2047, 4096, 6000, 12345, 33000, 70000]), max_len))
        shape = "batch = %d\nkv_len = %d" % (b, L)
        tag = "b%d-%d" % (b, L)
    name = "P%02d-d%d-g%d-h%d-q%d-p%d-%s-%s" % (i, d, ratio, kvh, q_len, page, dtype.replace("/", "").replace("-", ""), tag)
    out.append('[[workload]]\nname = "%s"\n%s\nq_len = %d\nq_heads = %d\nkv_heads = %d\nhead_dim = %d\npage_sizes = [%d]\ndtype = "%s"\n'
               % (name, shape, q_len, ratio * kvh, kvh, d, page, dtype))
print("\n".join(out))
