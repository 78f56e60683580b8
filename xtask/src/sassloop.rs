//! `cargo xtask sass <entry> --loop`: the tensor-core loop of one entry's SASS, summarised.
//!
//! A decode kernel's time is its tile loop: the loop that holds its MMA instructions
//! (`HMMA`, `HGMMA`, `UTCHMMA`...). What moves between builds is that loop's size, its opcode
//! mix and whether local memory (`LDL` / `STL`, i.e. spills) is touched inside it; spills
//! before or after it cost once per CTA. Session 33 found a 5% larger tile loop this way (an
//! item loop around it made ptxas rematerialise values it had kept in registers).

use std::collections::BTreeMap;

/// One SASS instruction: its address and its text (predicate included, no `;`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instr {
    pub addr: u64,
    pub text: String,
}

/// The instructions of a `cuobjdump -sass` listing (lines `/*0a40*/  OP ... ;`).
pub fn parse(sass: &str) -> Vec<Instr> {
    sass.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix("/*")?;
            let (addr, rest) = l.split_once("*/")?;
            let addr = u64::from_str_radix(addr, 16).ok()?;
            let text = rest.trim().split(';').next()?.trim().to_string();
            (!text.is_empty()).then_some(Instr { addr, text })
        })
        .collect()
}

/// The opcode of an instruction, without its predicate (`@!P0 BRA 0x40` -> `BRA`).
pub fn opcode(text: &str) -> &str {
    let mut words = text.split_whitespace();
    let first = words.next().unwrap_or("");
    if first.starts_with('@') {
        words.next().unwrap_or("")
    } else {
        first
    }
}

fn is_mma(op: &str) -> bool {
    op.contains("MMA")
}

/// Target of a branch instruction (`BRA`, `BRA.U.ANY`, ... with an absolute `0x` target).
fn branch_target(text: &str) -> Option<u64> {
    if !opcode(text).starts_with("BRA") {
        return None;
    }
    let t = text.rsplit("0x").next()?;
    let hex: String = t.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
    u64::from_str_radix(&hex, 16).ok()
}

/// The tensor-core loop: the shortest range `[target, branch]` of a backward branch that
/// contains every MMA instruction, or `None` (no MMA, or no loop around all of them).
pub fn mma_loop(ins: &[Instr]) -> Option<(u64, u64)> {
    let mma: Vec<u64> = ins
        .iter()
        .filter(|i| is_mma(opcode(&i.text)))
        .map(|i| i.addr)
        .collect();
    let (first, last) = (*mma.first()?, *mma.last()?);
    ins.iter()
        .filter_map(|i| branch_target(&i.text).map(|t| (t, i.addr)))
        .filter(|&(t, b)| t < b && t <= first && b >= last)
        .min_by_key(|&(t, b)| b - t)
}

/// What the loop `[from, to]` holds: instruction count, opcodes by count, local accesses.
pub struct LoopSummary {
    pub from: u64,
    pub to: u64,
    pub instructions: usize,
    pub opcodes: BTreeMap<String, usize>,
    /// `LDL` / `STL` inside the loop.
    pub local: usize,
    /// `LDL` / `STL` in the whole entry.
    pub local_total: usize,
}

pub fn summarise(ins: &[Instr], (from, to): (u64, u64)) -> LoopSummary {
    let local = |i: &Instr| {
        let op = opcode(&i.text);
        op.starts_with("LDL") || op.starts_with("STL")
    };
    let body: Vec<&Instr> = ins
        .iter()
        .filter(|i| (from..=to).contains(&i.addr))
        .collect();
    let mut opcodes = BTreeMap::new();
    for i in &body {
        let base = opcode(&i.text).split('.').next().unwrap_or("");
        *opcodes.entry(base.to_string()).or_insert(0) += 1;
    }
    LoopSummary {
        from,
        to,
        instructions: body.len(),
        opcodes,
        local: body.iter().filter(|i| local(i)).count(),
        local_total: ins.iter().filter(|i| local(i)).count(),
    }
}

/// The report `cargo xtask sass <entry> --loop` prints.
pub fn report(entry: &str, sass: &str) -> String {
    let ins = parse(sass);
    let Some(range) = mma_loop(&ins) else {
        return format!(
            "{entry}: no loop around its MMA instructions ({} instructions)\n",
            ins.len()
        );
    };
    let s = summarise(&ins, range);
    let mut ops: Vec<(&String, &usize)> = s.opcodes.iter().collect();
    ops.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let top: Vec<String> = ops
        .iter()
        .take(12)
        .map(|(o, n)| format!("{o} {n}"))
        .collect();
    format!(
        "{entry}: MMA loop {:#x}..{:#x}: {} instructions; local memory {} inside, {} in the entry\n  {}\n",
        s.from,
        s.to,
        s.instructions,
        s.local,
        s.local_total,
        top.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const SASS: &str = "\
        /*0000*/                   MOV R1, c[0x0][0x28] ;                 /* 0x00000a00ff017b82 */
        /*0010*/                   STL [R1], R2 ;                          /* 0x0000000201007387 */
        /*0020*/                   LDS R4, [R3] ;                          /* 0x0000000003047984 */
        /*0030*/                   HMMA.16816.F32.BF16 R8, R4, R6, R8 ;  /* 0x000000060408723c */
        /*0040*/                   @!P0 BRA 0x60 ;                         /* 0x0000000000008947 */
        /*0050*/                   HMMA.16816.F32.BF16 R12, R4, R6, R12 ; /* 0x00000006040c723c */
        /*0060*/                   ISETP.NE.AND P1, PT, R5, RZ, PT ;       /* 0x000000ff0500720c */
        /*0070*/              @P1  BRA 0x20 ;                              /* 0x0000000000001947 */
        /*0080*/                   LDL R2, [R1] ;                          /* 0x0000000001027983 */
        /*0090*/                   BRA 0x0 ;                               /* 0xfffffff000007947 */
";

    #[test]
    fn finds_the_innermost_loop_around_every_mma() {
        let ins = parse(SASS);
        assert_eq!(ins.len(), 10);
        assert_eq!(opcode(&ins[7].text), "BRA");
        // 0x20..0x70 holds both HMMAs; 0x0..0x90 does too but is longer.
        assert_eq!(mma_loop(&ins), Some((0x20, 0x70)));
        let s = summarise(&ins, (0x20, 0x70));
        assert_eq!((s.instructions, s.local, s.local_total), (6, 0, 2));
        assert_eq!(s.opcodes["HMMA"], 2);
        assert!(report("k", SASS).contains("6 instructions; local memory 0 inside, 2 in the entry"));
    }

    #[test]
    fn no_mma_no_loop() {
        let ins = parse("        /*0000*/   EXIT ;   /* 0x000000000000794d */\n");
        assert_eq!(mma_loop(&ins), None);
        assert!(report("k", "").contains("no loop"));
    }
}
