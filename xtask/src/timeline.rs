//! `cargo xtask timeline FILE...`: where a decode call's time goes, from the per-CTA records
//! of `ferroflash bench --timeline DIR` (one `timeline-<workload>-p<page>.json` per case).
//!
//! Per file: the decode grid's start (dependency met -> first full stage), the streaming rate
//! per CTA and per SM (the SMs' spread is what makes equal chunks end at different times), the
//! end of the tile loops, the warp merge, and the combine grid's hand-over and duration. Times
//! in microseconds from the first decode CTA's entry; rates in GB/s when the file carries
//! `tile_bytes` (files written before it did report tiles per microsecond).

use serde_json::Value;
use std::collections::BTreeMap;

/// Word indices of a record (`ferroflash_contract::params::TimelineEvent`).
const ENTRY: usize = 0;
const DEP: usize = 1;
const FIRST: usize = 2;
const LOOP_END: usize = 3;
const EXIT: usize = 4;
const SM: usize = 5;
const TILES: usize = 6;
const MERGE_DONE: usize = 8;
const CLUSTER_MET: usize = 9;
const REMOTE_DONE: usize = 10;

/// Words of a record (`TIMELINE_WORDS`); files written before session 11 have 8 (the missing
/// events read as 0).
const WORDS: usize = 12;
type Rec = [u64; WORDS];

/// `a - b` nanoseconds in microseconds. `%globaltimer` stamps are ~1.8e18 ns: converted to f64
/// before the subtraction they lose everything under 256 ns (session 15 found every earlier
/// `cargo xtask timeline` figure rounded so), hence the difference in integers first.
fn ns_to_us(a: u64, b: u64) -> f64 {
    (a as i128 - b as i128) as f64 * 1e-3
}

/// The upper median of `v`, NaN when empty.
fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Percentiles `qs` (0..=1) of `v` (nearest rank).
fn percentiles(v: &[f64], qs: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    qs.iter()
        .map(|q| {
            if s.is_empty() {
                f64::NAN
            } else {
                s[((s.len() - 1) as f64 * q).round() as usize]
            }
        })
        .collect()
}

fn line(name: &str, v: &[f64]) -> String {
    let p = percentiles(v, &[0.0, 0.1, 0.5, 0.9, 1.0]);
    format!(
        "  {name:<38} min {:>7.1}  p10 {:>7.1}  median {:>7.1}  p90 {:>7.1}  max {:>7.1}",
        p[0], p[1], p[2], p[3], p[4]
    )
}

fn records(v: &Value, key: &str) -> Result<Vec<Rec>, String> {
    let arr = v[key]
        .as_array()
        .ok_or_else(|| format!("no `{key}` array"))?;
    arr.iter()
        .map(|r| {
            let w: Vec<u64> = r
                .as_array()
                .ok_or("a record is not an array")?
                .iter()
                .map(|x| x.as_u64().ok_or("a record word is not a u64"))
                .collect::<Result<_, _>>()?;
            if !(8..=WORDS).contains(&w.len()) {
                return Err(format!("a record has {} words (8 to {WORDS})", w.len()));
            }
            let mut r = [0; WORDS];
            r[..w.len()].copy_from_slice(&w);
            Ok(r)
        })
        .collect()
}

/// The analysis of one timeline file as text.
pub fn analyse(v: &Value) -> Result<String, String> {
    let dec = records(v, "decode")?;
    let comb = records(v, "combine").unwrap_or_default();
    if dec.is_empty() {
        return Err("no decode records".into());
    }
    let t0 = dec.iter().map(|r| r[ENTRY]).min().unwrap();
    let us = |x: u64| ns_to_us(x, t0);
    let tile_bytes = v["tile_bytes"].as_u64();
    let unit = if tile_bytes.is_some() {
        "GB/s"
    } else {
        "tiles/us"
    };
    let rate = |r: &Rec| -> Option<f64> {
        let ns = r[LOOP_END].checked_sub(r[FIRST])?;
        (r[TILES] > 0 && r[FIRST] > 0 && ns > 0).then(|| match tile_bytes {
            Some(b) => (r[TILES] * b) as f64 / ns as f64,
            None => r[TILES] as f64 * 1e3 / ns as f64,
        })
    };
    let streaming: Vec<&Rec> = dec
        .iter()
        .filter(|r| r[TILES] > 0 && r[FIRST] > 0)
        .collect();
    let mut out = vec![format!(
        "{} p{}: {} decode CTAs, {} combine CTAs",
        v["workload"].as_str().unwrap_or("?"),
        v["page"].as_u64().unwrap_or(0),
        dec.len(),
        comb.len()
    )];
    let mut per_sm: BTreeMap<u64, (u32, f64)> = BTreeMap::new();
    for r in &dec {
        let e = per_sm.entry(r[SM]).or_default();
        e.0 += 1;
        e.1 += rate(r).unwrap_or(0.0);
    }
    let mut hist: BTreeMap<u32, u32> = BTreeMap::new();
    for (n, _) in per_sm.values() {
        *hist.entry(*n).or_default() += 1;
    }
    out.push(format!(
        "  SMs used {}; CTAs per SM: {}",
        per_sm.len(),
        hist.iter()
            .map(|(n, c)| format!("{c} SMs x {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let col = |f: &dyn Fn(&Rec) -> f64| -> Vec<f64> { streaming.iter().map(|r| f(r)).collect() };
    out.push(line("dependency met (us)", &col(&|r| us(r[DEP]))));
    out.push(line(
        "start: dependency -> first tile (us)",
        &col(&|r| ns_to_us(r[FIRST], r[DEP])),
    ));
    out.push(line(
        &format!("rate per CTA ({unit})"),
        &streaming.iter().filter_map(|r| rate(r)).collect::<Vec<_>>(),
    ));
    // SMs whose CTAs all streamed: their summed rate.
    let full: Vec<f64> = per_sm
        .iter()
        .filter(|(_, (n, _))| *n == *hist.keys().max().unwrap())
        .map(|(_, (_, r))| *r)
        .collect();
    out.push(line(&format!("rate per SM, fullest SMs ({unit})"), &full));
    let p = percentiles(&full, &[0.0, 1.0]);
    if p[0] > 0.0 {
        out.push(format!("  per-SM spread (max / min): {:.2}", p[1] / p[0]));
    }
    out.push(line("tile loop end (us)", &col(&|r| us(r[LOOP_END]))));
    out.push(line(
        "loop end -> exit (us)",
        &col(&|r| ns_to_us(r[EXIT], r[LOOP_END])),
    ));
    if streaming.iter().all(|r| r[MERGE_DONE] > 0) {
        out.push(line(
            "loop end -> in-CTA merge done (us)",
            &col(&|r| ns_to_us(r[MERGE_DONE], r[LOOP_END])),
        ));
    }
    let last_exit = dec.iter().map(|r| r[EXIT]).max().unwrap();
    if let (Some(stamps), Some(b)) = (v["tile_stamps"].as_array(), tile_bytes) {
        let dep = dec
            .iter()
            .filter(|r| r[DEP] > 0)
            .map(|r| us(r[DEP]))
            .fold(f64::INFINITY, f64::min);
        // Per CTA (in the records' order): TILE_STAMPS end stamps, then (files written after
        // session 14's calls) TILE_STAMPS begin stamps.
        let per_cta: Vec<Vec<u64>> = stamps
            .iter()
            .filter_map(|c| c.as_array())
            .map(|c| c.iter().map(|x| x.as_u64().unwrap_or(0)).collect())
            .collect();
        // One end time per tile: a step of two paired tiles counts twice at its end.
        let done: Vec<f64> = per_cta
            .iter()
            .flat_map(|c| {
                let steps = tile_steps(c);
                if steps.is_empty() {
                    // Files without begin stamps: each end stamp is one tile.
                    let ends = c.iter().take(TILE_STAMPS as usize).filter(|&&x| x != 0);
                    ends.map(|&x| us(x)).collect::<Vec<_>>()
                } else {
                    steps
                        .iter()
                        .flat_map(|st| std::iter::repeat_n(us(st.end), st.tiles))
                        .collect()
                }
            })
            .collect();
        if dec.iter().any(|r| r[TILES] > TILE_STAMPS) {
            // Only the first TILE_STAMPS tiles of a CTA are stamped: the profile would end
            // where the stamps do, not where the call does.
            out.push(format!(
                "  tiles: some CTA has more than {TILE_STAMPS} tiles; only their first {TILE_STAMPS} are stamped, no profile"
            ));
        } else {
            out.extend(tile_profile(dep, done, b as f64, us(last_exit)));
            if per_cta.len() == dec.len() {
                let ctas: Vec<(f64, &[u64])> = dec
                    .iter()
                    .zip(&per_cta)
                    .filter(|(r, c)| r[DEP] > 0 && c.len() >= 2 * TILE_STAMPS as usize)
                    .map(|(r, c)| (us(r[DEP]), c.as_slice()))
                    .collect();
                if !ctas.is_empty() {
                    out.push(tile_phases(&ctas, us));
                }
                out.extend(epilogue_phases(&dec, &per_cta));
            }
        }
    }
    if !comb.is_empty() {
        let c: Vec<&Rec> = comb.iter().filter(|r| r[ENTRY] > 0).collect();
        out.push(line(
            "combine: last decode exit -> dep (us)",
            &c.iter()
                .map(|r| ns_to_us(r[DEP], last_exit))
                .collect::<Vec<_>>(),
        ));
        out.push(line(
            "combine: dependency -> exit (us)",
            &c.iter()
                .map(|r| ns_to_us(r[EXIT], r[DEP]))
                .collect::<Vec<_>>(),
        ));
        let end = c.iter().map(|r| r[EXIT]).max().unwrap_or(last_exit);
        out.push(format!(
            "  call ends (last combine exit): {:.1} us",
            us(end)
        ));
    } else {
        out.push(format!(
            "  call ends (last decode exit): {:.1} us",
            us(last_exit)
        ));
    }
    Ok(out.join("\n"))
}

/// Tiles per CTA with stamps (`TIMELINE_TILES`).
const TILE_STAMPS: u64 = 64;

/// Where the tiles of a call were consumed, from the per-tile stamps of a `FF_TILE_STAMPS=1`
/// build (`done`: every stamped tile's end; `dep`: the first dependency met; `exit`: the last
/// decode exit; all in us): the consumed bandwidth per microsecond from `dep`, the steady rate
/// (over the tiles after the `n / 5 + 1`-th to end, up to the `4 n / 5 + 1`-th), how much later
/// than at the steady rate from `dep` the first fifth of the tiles ended (the start's cost), how
/// much longer than at the steady rate the last fifth took (the end's cost), and the last
/// tile's end to the last exit.
fn tile_profile(dep: f64, mut done: Vec<f64>, tile_bytes: f64, exit: f64) -> Vec<String> {
    done.sort_by(f64::total_cmp);
    let n = done.len();
    let (i, j) = (n / 5, 4 * n / 5);
    // `%globaltimer` ticks in 32 ns steps, so stamps can coincide: no rate without a span.
    if n < 10 || !dep.is_finite() || done[j] <= done[i] {
        return vec!["  tiles: too few stamped".into()];
    }
    let (a, b, last) = (done[i], done[j], done[n - 1]);
    // Bytes per microsecond / 1e6 = TB/s.
    let rate = (j - i) as f64 * tile_bytes / (b - a) / 1e6;
    // Microseconds for `k` tiles at the steady rate.
    let steady_us = |k: usize| k as f64 * tile_bytes / (rate * 1e6);
    let bins = (last - dep).max(0.0) as usize + 1;
    let mut per_us = vec![0u32; bins];
    for &t in &done {
        per_us[((t - dep).max(0.0)) as usize] += 1;
    }
    vec![
        format!(
            "  tiles: {n} stamped; first ends {:.1} us after dep; steady {rate:.2} TB/s; start lag {:.1} us, end lag {:.1} us; last tile -> last exit {:.1} us",
            done[0] - dep,
            a - dep - steady_us(i + 1),
            last - b - steady_us(n - 1 - j),
            exit - last
        ),
        format!(
            "  tiles consumed per us from dep (TB/s): {}",
            per_us
                .iter()
                .map(|&c| format!("{:.1}", c as f64 * tile_bytes / 1e6))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    ]
}

/// One consumer step of a CTA's stamped tiles: `tiles` tiles from `first`, the stage found full
/// at `begin`, done at `end`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct TileStep {
    first: usize,
    tiles: usize,
    begin: u64,
    end: u64,
}

/// The consumer steps of one CTA's tile stamps (end stamps, then begin stamps; empty for files
/// without begin stamps), up to the first unstamped tile. A step is one tile (begin and end
/// stamped at its index) or, in the paired fp8 kernels (`_m8p`), two: the begin stamped at the
/// first tile, the end at the second.
fn tile_steps(c: &[u64]) -> Vec<TileStep> {
    let n = TILE_STAMPS as usize;
    let mut steps = Vec::new();
    if c.len() < 2 * n {
        return steps;
    }
    let mut t = 0;
    while t < n && c[n + t] != 0 {
        let tiles = if c[t] != 0 {
            1
        } else if t + 1 < n && c[t + 1] != 0 && c[n + t + 1] == 0 {
            2
        } else {
            break;
        };
        steps.push(TileStep {
            first: t,
            tiles,
            begin: c[n + t],
            end: c[t + tiles - 1],
        });
        t += tiles;
    }
    steps
}

/// From per-CTA begin (stage found full) and end stamps, `(dep, stamps)` per CTA with its own
/// dependency met in us: the median consumer pass (begin to end) and wait for data (the
/// previous tile's end, or the CTA's `dep` for tile 0, to begin) of tiles 0, 1, 2 and 3, and
/// of the middle tiles (4 up to the last 4 of the CTA's stamped tiles); where the build also
/// wrote issue stamps (third group), the medians from `dep` of when tiles 0-7 were issued,
/// found full and done. `us` converts a stamp.
fn tile_phases(ctas: &[(f64, &[u64])], us: impl Fn(u64) -> f64) -> String {
    let n = TILE_STAMPS as usize;
    let steps: Vec<(f64, Vec<TileStep>)> =
        ctas.iter().map(|(dep, c)| (*dep, tile_steps(c))).collect();
    let paired = steps.iter().any(|(_, s)| s.iter().any(|st| st.tiles == 2));
    // (wait, pass) of the steps of every CTA that `pick(k, stamped steps)` selects.
    let phase = |pick: &dyn Fn(usize, usize) -> bool| -> (f64, f64) {
        let (mut wait, mut pass) = (Vec::new(), Vec::new());
        for (dep, s) in &steps {
            for (k, st) in s.iter().enumerate().filter(|&(k, _)| pick(k, s.len())) {
                let (begin, end) = (us(st.begin), us(st.end));
                pass.push(end - begin);
                wait.push(begin - if k == 0 { *dep } else { us(s[k - 1].end) });
            }
        }
        (median(wait), median(pass))
    };
    let unit = if paired { "step" } else { "tile" };
    // "-" where no CTA has such a step (e.g. the middle of short CTAs).
    let us2 = |x: f64| {
        if x.is_nan() {
            "-".to_string()
        } else {
            format!("{x:.2}")
        }
    };
    let mut cols = Vec::new();
    for k in 0..4 {
        let (wait, pass) = phase(&|t, _| t == k);
        cols.push(format!("{unit} {k}: wait {} pass {}", us2(wait), us2(pass)));
    }
    let (wait, pass) = phase(&|t, m| t >= 4 && t + 4 < m);
    cols.push(format!("middle: wait {} pass {}", us2(wait), us2(pass)));
    let mut out = format!(
        "  {unit} phases{}, median us (wait: the previous {unit}'s end, or dep, to the stage found full; pass: to done): {}",
        if paired { " (paired tiles: a step is two tiles)" } else { "" },
        cols.join("; ")
    );
    // Issue stamps (third group), where the build wrote them: per tile, the medians of when
    // it was issued, found full and done, from the CTA's dep.
    if ctas.iter().all(|(_, c)| c.len() >= 3 * n) && ctas.iter().any(|(_, c)| c[2 * n] != 0) {
        let mut rows = Vec::new();
        for t in 0..8 {
            let at = |w: usize| {
                median(
                    ctas.iter()
                        .filter(|(_, c)| c[w] != 0)
                        .map(|(dep, c)| us(c[w]) - dep)
                        .collect(),
                )
            };
            // A paired step stamps found full at its first tile and done at its second: "-"
            // for the stamp a tile does not have.
            rows.push(format!(
                "{t}: {}/{}/{}",
                us2(at(2 * n + t)),
                us2(at(n + t)),
                us2(at(t))
            ));
        }
        out.push_str(&format!(
            "\n  tiles from dep, median us (issued/found full/done): {}",
            rows.join("; ")
        ));
    }
    out
}

/// The epilogue stamps of a `FF_TILE_STAMPS=1` build (the last eight words of a CTA's third
/// group of tile stamps; see `stamp_epi` in `kernels-gpu/src/attention/decode.rs`): medians from
/// each CTA's loop end of the ring-reuse barrier passed, the merge scratch written, the first
/// consumers' barrier passed, pass 1 and its barrier done, the in-CTA merge done and the
/// producer's `wait_group 0`; then, for the CTA whose loop ended last, the steps to its exit.
/// Nothing for files without them.
fn epilogue_phases(dec: &[Rec], per_cta: &[Vec<u64>]) -> Vec<String> {
    let base = 3 * TILE_STAMPS as usize - 8;
    let stamped: Vec<(&Rec, &[u64])> = dec
        .iter()
        .zip(per_cta)
        .filter(|(r, c)| {
            r[LOOP_END] > 0 && c.len() >= base + 5 && c[base..base + 5].iter().all(|&x| x > 0)
        })
        .map(|(r, c)| (r, &c[base..base + 5]))
        .collect();
    if stamped.is_empty() {
        return Vec::new();
    }
    let from_end = |at: &dyn Fn(&Rec, &[u64]) -> u64| -> f64 {
        median(
            stamped
                .iter()
                .map(|(r, e)| ns_to_us(at(r, e), r[LOOP_END]))
                .collect(),
        )
    };
    let mut out = vec![format!(
        "  epilogue, median us from the loop end: ring barrier {:.2}, scratch written {:.2}, barrier {:.2}, pass 1 {:.2}, merge done {:.2}; producer wait_group 0 {:.2}",
        from_end(&|_, e| e[0]),
        from_end(&|_, e| e[1]),
        from_end(&|_, e| e[2]),
        from_end(&|_, e| e[3]),
        from_end(&|r, _| r[MERGE_DONE]),
        from_end(&|_, e| e[4]),
    )];
    if let Some(last) = dec.iter().max_by_key(|r| r[LOOP_END]) {
        let after = |w: usize| {
            if last[w] > 0 {
                format!("{:.2}", ns_to_us(last[w], last[LOOP_END]))
            } else {
                "-".into()
            }
        };
        out.push(format!(
            "  the last loop end: merge done +{}, cluster met +{}, remote done +{}, exit +{} us",
            after(MERGE_DONE),
            after(CLUSTER_MET),
            after(REMOTE_DONE),
            after(EXIT)
        ));
    }
    out
}

/// `cargo xtask timeline FILE...`.
pub fn cmd_timeline(args: &[String]) -> Result<(), String> {
    if args.is_empty() {
        return Err("usage: cargo xtask timeline FILE.json...".into());
    }
    for f in args {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{f}: {e}"))?;
        println!("{}", analyse(&v).map_err(|e| format!("{f}: {e}"))?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two SMs, three CTAs: SM 7 holds two (one at 2 tiles/us, one at 1), SM 9 one; a combine.
    #[test]
    fn synthetic_file() {
        let rec = |entry: u64, dep, first, loop_end, exit, sm, tiles| {
            serde_json::json!([entry, dep, first, loop_end, exit, sm, tiles, 0])
        };
        let v = serde_json::json!({
            "workload": "T", "page": 16, "tile_bytes": 1000,
            "decode": [
                rec(1000, 2000, 3000, 13000, 14000, 7, 20),
                rec(1000, 2000, 3000, 23000, 24000, 7, 20),
                rec(1500, 2000, 5000, 15000, 16000, 9, 10),
            ],
            "combine": [rec(1000, 24500, 0, 0, 26000, 1, 2)],
        });
        let t = analyse(&v).unwrap();
        // min, p10, median, p90, max of the line that starts with `name`.
        let stat = |name: &str| -> Vec<f64> {
            let l = t
                .lines()
                .find(|l| l.trim_start().starts_with(name))
                .unwrap();
            l[2 + 38..]
                .split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect()
        };
        assert!(t.contains("3 decode CTAs, 1 combine CTAs"), "{t}");
        assert!(
            t.contains("SMs used 2; CTAs per SM: 1 SMs x 1, 1 SMs x 2"),
            "{t}"
        );
        // Rates: 20 tiles x 1000 B over 10 us = 2 GB/s, over 20 us = 1, and 10 over 10 = 1.
        assert_eq!(
            stat("rate per CTA (GB/s)"),
            [1.0, 1.0, 1.0, 2.0, 2.0],
            "{t}"
        );
        // Only SM 7 holds the most CTAs: 2 + 1 = 3 GB/s.
        assert_eq!(stat("rate per SM, fullest SMs (GB/s)"), [3.0; 5], "{t}");
        assert_eq!(
            stat("start: dependency -> first tile"),
            [1.0, 1.0, 1.0, 3.0, 3.0],
            "{t}"
        );
        assert_eq!(stat("combine: dependency -> exit"), [1.5; 5], "{t}");
        assert!(t.contains("call ends (last combine exit): 25.0 us"), "{t}");
        // Without tile_bytes the rates are in tiles per microsecond.
        let mut v = v;
        v.as_object_mut().unwrap().remove("tile_bytes");
        assert!(analyse(&v).unwrap().contains("rate per CTA (tiles/us)"));
    }

    /// Tile stamps: 100 tiles of 1 MB, dep at 5 us. Tiles 0..19 end every 0.2 us from 5.0,
    /// tiles 20..=80 every 0.1 us from 9.0 (10 TB/s), tiles 81..99 every 0.2 us from 15.2.
    #[test]
    fn tile_profile_lags() {
        let mut done: Vec<f64> = (0..20).map(|k| 5.0 + 0.2 * k as f64).collect();
        done.extend((20..=80).map(|k| 9.0 + 0.1 * (k - 20) as f64));
        done.extend((81..100).map(|k| 15.0 + 0.2 * (k - 80) as f64));
        let t = tile_profile(5.0, done, 1e6, 19.8).join("\n");
        // Steady: tiles 21 -> 80 end in (9.0, 15.0], 60 MB in 6 us. Tile 20 ends 9.0; 21
        // tiles at the steady rate from dep would end at 7.1: 1.9 late. Tile 99 ends 18.8,
        // 1.9 us (19 tiles) after tile 80 at the steady rate: 1.9 late.
        assert!(t.contains("steady 10.00 TB/s"), "{t}");
        assert!(t.contains("start lag 1.9 us, end lag 1.9 us"), "{t}");
        assert!(t.contains("first ends 0.0 us after dep"), "{t}");
        assert!(t.contains("last tile -> last exit 1.0 us"), "{t}");
        // Bins from dep: 5 tiles per us over 5-9, 10 per us over 9-15 (bin 4 holds 9.0-9.9
        // and bin 10 holds 15.0 and 15.2-15.8), then 5 per us to 18.8; no empty bin after.
        assert!(
            t.ends_with("(TB/s): 5.0 5.0 5.0 5.0 10.0 10.0 10.0 10.0 10.0 10.0 5.0 5.0 5.0 5.0"),
            "{t}"
        );
    }

    /// Begin and end stamps (ns) of two CTAs with their own dep. CTA A (dep 1 us, 12 tiles):
    /// tile t begins at 10 t + 3 us and takes t + 1 us. CTA B (dep 0, 2 tiles): tile t begins
    /// at 5 + t and takes 0.5 us. Unstamped words are 0.
    #[test]
    fn tile_phases_pass_and_wait() {
        let n = TILE_STAMPS as usize;
        let mut a = vec![0u64; 2 * n];
        for t in 0..12 {
            a[n + t] = (10 * t as u64 + 3) * 1000;
            a[t] = a[n + t] + (t as u64 + 1) * 1000;
        }
        let mut b = vec![0u64; 2 * n];
        for t in 0..2 {
            b[n + t] = (5 + t as u64) * 1000;
            b[t] = b[n + t] + 500;
        }
        let t = tile_phases(&[(1.0, &a[..]), (0.0, &b[..])], |x| x as f64 * 1e-3);
        // Tile 0: waits 2 (A) and 5 (B), passes 1 and 0.5: the upper medians 5 and 1.
        assert!(t.contains("tile 0: wait 5.00 pass 1.00"), "{t}");
        // Tile 1: A waits 13 - 4 = 9, passes 2; B waits 6 - 5.5 = 0.5, passes 0.5.
        assert!(t.contains("tile 1: wait 9.00 pass 2.00"), "{t}");
        // Tile 3: A only: waits 33 - 26 = 7, passes 4.
        assert!(t.contains("tile 3: wait 7.00 pass 4.00"), "{t}");
        // Middle of A: tiles 4..8 (4 + 4 < 12): waits 10 - t, passes t + 1 (t = 4..7); B has
        // none. Upper medians: wait 5 (of 3, 4, 5, 6), pass 7 (of 5, 6, 7, 8).
        assert!(t.contains("middle: wait 5.00 pass 7.00"), "{t}");
    }

    /// Paired fp8 steps (`_m8p`): found full stamped at a step's first tile, done at its second,
    /// and a last single tile. Steps of two tiles each: step k begins at 4 k + 2 us and takes
    /// 1 us; then tile 6 alone begins at 14 and takes 0.5.
    #[test]
    fn tile_phases_paired_steps() {
        let n = TILE_STAMPS as usize;
        let mut c = vec![0u64; 2 * n];
        for k in 0..3 {
            c[n + 2 * k] = (4 * k as u64 + 2) * 1000;
            c[2 * k + 1] = c[n + 2 * k] + 1000;
        }
        c[n + 6] = 14_000;
        c[6] = 14_500;
        let steps = tile_steps(&c);
        assert_eq!(steps.len(), 4);
        assert_eq!(
            (steps[1].first, steps[1].tiles, steps[1].begin, steps[1].end),
            (2, 2, 6000, 7000)
        );
        assert_eq!((steps[3].first, steps[3].tiles), (6, 1));
        let t = tile_phases(&[(0.0, &c[..])], |x| x as f64 * 1e-3);
        assert!(t.contains("step 0: wait 2.00 pass 1.00"), "{t}");
        // Step 1 waits from step 0's end (3) to 6.
        assert!(t.contains("step 1: wait 3.00 pass 1.00"), "{t}");
        assert!(t.contains("step 3: wait 3.00 pass 0.50"), "{t}");
        assert!(!t.contains("NaN"), "{t}");
        // Unpaired stamps keep the tile wording.
        let mut u = vec![0u64; 2 * n];
        (u[n], u[0]) = (1000, 2000);
        assert!(tile_phases(&[(0.0, &u[..])], |x| x as f64 * 1e-3)
            .contains("tile 0: wait 1.00 pass 1.00"));
    }

    /// Session 14's stamped W2 file (call h) through `analyse`: 256 CTAs of 32 tiles, all
    /// stamped. (Session 14's own reading, 3.8 and 2.6 us, was rounded to 256 ns: see
    /// [`ns_to_us`].)
    #[test]
    fn session14_tile_stamps() {
        let root = env!("CARGO_MANIFEST_DIR");
        let f =
            format!("{root}/../docs/results/2026-11-30-h200-s14/h/tl/timeline-W2-b8-8k-p16.json");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let t = analyse(&v).unwrap();
        assert!(
            t.contains("tiles: 8192 stamped; first ends 3.9 us after dep"),
            "{t}"
        );
        assert!(t.contains("last tile -> last exit 2.3 us"), "{t}");
    }

    /// The session 5 files in docs/results parse and give the numbers perf.md quotes.
    #[test]
    fn session5_w2() {
        let root = env!("CARGO_MANIFEST_DIR");
        let f = format!("{root}/../docs/results/2026-11-29-h200-s5/tl/timeline-W2-b8-8k-p16.json");
        let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let t = analyse(&v).unwrap();
        assert!(t.contains("256 decode CTAs, 64 combine CTAs"), "{t}");
    }
}
