//! Bad-input catalogue, host side: every malformed configuration or batch table is refused by
//! the public validators with the typed error that names the problem, never a panic. These are
//! the checks `DecodePlan::new` / `update` run before anything is uploaded or launched; the
//! tensor-level ones (shapes, dtypes, alignment, null pointers, untouched outputs) are the GPU
//! case `decode/bad_tensors_rejected_before_launch`.

use ferroflash::{BatchTables, DecodeConfig, Dtype16, Error, Fp8Format, Splits, TailSplit};

fn cfg() -> DecodeConfig {
    DecodeConfig::new(32, 8, 128, 16, 10, Dtype16::Bf16)
}

type Check = fn(&Result<(), Error>) -> bool;
/// (description, config edit, expected error)
type ConfigCase = (&'static str, fn(&mut DecodeConfig), Check);

fn config_cases() -> Vec<ConfigCase> {
    vec![
        (
            "head_dim 100 (not a multiple of 16)",
            |c| c.head_dim = 100,
            |r| matches!(r, Err(Error::UnsupportedHeadDim(100))),
        ),
        (
            "head_dim 32 over an fp8 KV cache (padded fp8 head dims are 80-112 and 144-240)",
            |c| (c.head_dim, c.kv_fp8) = (32, Some(Fp8Format::E4m3)),
            |r| matches!(r, Err(Error::UnsupportedHeadDim(32))),
        ),
        (
            "head_dim 48 over an fp8 KV cache",
            |c| (c.head_dim, c.kv_fp8) = (48, Some(Fp8Format::E5m2)),
            |r| matches!(r, Err(Error::UnsupportedHeadDim(48))),
        ),
        (
            "head_dim 96 with all-FP8 inputs",
            |c| (c.head_dim, c.q_fp8, c.kv_fp8) = (96, true, Some(Fp8Format::E5m2)),
            |r| matches!(r, Err(Error::UnsupportedHeadDim(96))),
        ),
        (
            "head_dim 272 (past 256)",
            |c| c.head_dim = 272,
            |r| matches!(r, Err(Error::UnsupportedHeadDim(272))),
        ),
        (
            "head_dim 0",
            |c| c.head_dim = 0,
            |r| matches!(r, Err(Error::UnsupportedHeadDim(0))),
        ),
        (
            "head_dim 512",
            |c| c.head_dim = 512,
            |r| matches!(r, Err(Error::UnsupportedHeadDim(512))),
        ),
        (
            "q_heads not a multiple of kv_heads",
            |c| c.q_heads = 30,
            |r| {
                matches!(
                    r,
                    Err(Error::HeadRatio {
                        q_heads: 30,
                        kv_heads: 8
                    })
                )
            },
        ),
        (
            "kv_heads 0",
            |c| c.kv_heads = 0,
            |r| matches!(r, Err(Error::HeadRatio { .. })),
        ),
        (
            "q_heads 0",
            |c| c.q_heads = 0,
            |r| matches!(r, Err(Error::HeadRatio { .. })),
        ),
        (
            "fewer q heads than kv heads",
            |c| c.q_heads = 4,
            |r| matches!(r, Err(Error::HeadRatio { .. })),
        ),
        (
            "page_size 0",
            |c| c.page_size = 0,
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "page_size",
                        ..
                    })
                )
            },
        ),
        (
            "sm_scale NaN",
            |c| c.sm_scale = Some(f32::NAN),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "sm_scale",
                        ..
                    })
                )
            },
        ),
        (
            "sm_scale negative",
            |c| c.sm_scale = Some(-0.1),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "sm_scale",
                        ..
                    })
                )
            },
        ),
        (
            "sm_scale infinite",
            |c| c.sm_scale = Some(f32::INFINITY),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "sm_scale",
                        ..
                    })
                )
            },
        ),
        (
            "softcap 0",
            |c| c.softcap = Some(0.0),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "softcap",
                        ..
                    })
                )
            },
        ),
        (
            "softcap NaN",
            |c| c.softcap = Some(f32::NAN),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "softcap",
                        ..
                    })
                )
            },
        ),
        (
            "splits Fixed(0)",
            |c| c.splits = Splits::Fixed(0),
            |r| matches!(r, Err(Error::InvalidArgument { name: "splits", .. })),
        ),
        (
            "pool size overflowing u64",
            |c| {
                (c.q_heads, c.kv_heads, c.head_dim, c.page_size, c.num_pages) =
                    (1 << 26, 1 << 26, 64, 641, 6_700_417)
            },
            |r| matches!(r, Err(Error::InvalidArgument { name: "pool", .. })),
        ),
        (
            "num_pages 0",
            |c| c.num_pages = 0,
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "num_pages",
                        ..
                    })
                )
            },
        ),
        (
            "pool bytes over the address space",
            |c| (c.num_pages, c.page_size) = (u32::MAX, u32::MAX),
            |r| matches!(r, Err(Error::InvalidArgument { name: "pool", .. })),
        ),
        (
            "m_tiles 3",
            |c| c.m_tiles = Some(3),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "m_tiles",
                        ..
                    })
                )
            },
        ),
        (
            "m_tiles 4 with the key-split consumers",
            |c| (c.m_tiles, c.row_split) = (Some(4), Some(false)),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "m_tiles",
                        ..
                    })
                )
            },
        ),
        (
            "m_tiles 4 at head_dim 256 with the key-split consumers",
            |c| (c.m_tiles, c.head_dim, c.row_split) = (Some(4), 256, Some(false)),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "m_tiles",
                        ..
                    })
                )
            },
        ),
        (
            "m_tiles 2 at head_dim 256 with the key-split consumers",
            |c| (c.m_tiles, c.head_dim, c.row_split) = (Some(2), 256, Some(false)),
            |r| {
                matches!(
                    r,
                    Err(Error::InvalidArgument {
                        name: "m_tiles",
                        ..
                    })
                )
            },
        ),
        (
            "fp8 Q without an fp8 KV cache",
            |c| c.q_fp8 = true,
            |r| matches!(r, Err(Error::InvalidArgument { name: "q_fp8", .. })),
        ),
        (
            "tail split of 0 percent",
            |c| {
                c.tail = Some(TailSplit {
                    percent: 0,
                    chunk_tiles: 4,
                })
            },
            |r| matches!(r, Err(Error::InvalidArgument { name: "tail", .. })),
        ),
        (
            "tail split in chunks of 0 tiles",
            |c| {
                c.tail = Some(TailSplit {
                    percent: 25,
                    chunk_tiles: 0,
                })
            },
            |r| matches!(r, Err(Error::InvalidArgument { name: "tail", .. })),
        ),
        (
            "all-FP8 with an f16 output",
            |c| (c.q_fp8, c.kv_fp8, c.dtype) = (true, Some(Fp8Format::E5m2), Dtype16::F16),
            |r| matches!(r, Err(Error::InvalidArgument { name: "dtype", .. })),
        ),
    ]
}

#[test]
fn bad_configs_are_refused_with_the_named_error() {
    for (what, edit, expect) in config_cases() {
        let mut c = cfg();
        edit(&mut c);
        let r = c.validate();
        assert!(expect(&r), "{what}: got {r:?}");
    }
    assert_eq!(cfg().validate(), Ok(()));
}

/// A valid batch to edit: two requests, 20 and 33 keys (2 and 3 pages of 16), 1 and 4 new tokens.
struct Tables {
    q_indptr: Vec<u32>,
    kv_lens: Vec<u32>,
    page_indptr: Vec<u32>,
    page_indices: Vec<u32>,
}

fn tables() -> Tables {
    Tables {
        q_indptr: vec![0, 1, 5],
        kv_lens: vec![20, 33],
        page_indptr: vec![0, 2, 5],
        page_indices: vec![7, 2, 9, 0, 4],
    }
}

fn validate(t: &Tables) -> Result<Vec<u32>, Error> {
    BatchTables {
        q_indptr: &t.q_indptr,
        kv_lens: &t.kv_lens,
        page_indptr: &t.page_indptr,
        page_indices: &t.page_indices,
    }
    .validate(&cfg())
}

type TableCheck = fn(&Result<Vec<u32>, Error>) -> bool;
/// (description, table edit, expected error)
type TableCase = (&'static str, fn(&mut Tables), TableCheck);

fn table_cases() -> Vec<TableCase> {
    vec![
        (
            "empty batch",
            |t| {
                *t = Tables {
                    q_indptr: vec![0],
                    kv_lens: vec![],
                    page_indptr: vec![0],
                    page_indices: vec![],
                }
            },
            |r| matches!(r, Err(Error::EmptyBatch)),
        ),
        (
            "17 new tokens",
            |t| t.q_indptr = vec![0, 1, 18],
            |r| {
                matches!(
                    r,
                    Err(Error::NewTokens {
                        request: 1,
                        q_len: 17
                    })
                )
            },
        ),
        (
            "0 new tokens",
            |t| t.q_indptr = vec![0, 1, 1],
            |r| {
                matches!(
                    r,
                    Err(Error::NewTokens {
                        request: 1,
                        q_len: 0
                    })
                )
            },
        ),
        (
            "page id = num_pages",
            |t| t.page_indices[3] = 10,
            |r| {
                matches!(
                    r,
                    Err(Error::PageIdOutOfRange {
                        request: 1,
                        entry: 3,
                        page: 10,
                        num_pages: 10
                    })
                )
            },
        ),
        (
            "page id u32::MAX",
            |t| t.page_indices[0] = u32::MAX,
            |r| {
                matches!(
                    r,
                    Err(Error::PageIdOutOfRange {
                        request: 0,
                        entry: 0,
                        ..
                    })
                )
            },
        ),
        (
            "spare page-table entry out of range",
            |t| {
                t.page_indptr = vec![0, 3, 6];
                t.page_indices = vec![7, 2, 11, 9, 0, 4];
            },
            |r| {
                matches!(
                    r,
                    Err(Error::PageIdOutOfRange {
                        request: 0,
                        entry: 2,
                        page: 11,
                        ..
                    })
                )
            },
        ),
        (
            "kv_len beyond its pages",
            |t| t.kv_lens[1] = 49,
            |r| {
                matches!(
                    r,
                    Err(Error::KvLenExceedsPages {
                        request: 1,
                        kv_len: 49,
                        need: 4,
                        given: 3,
                        ..
                    })
                )
            },
        ),
        (
            "kv_lens shorter than the batch",
            |t| t.kv_lens.truncate(1),
            |r| {
                matches!(
                    r,
                    Err(Error::BadIndptr {
                        name: "q_indptr",
                        ..
                    })
                )
            },
        ),
        (
            "q_indptr too long",
            |t| t.q_indptr.push(6),
            |r| {
                matches!(
                    r,
                    Err(Error::BadIndptr {
                        name: "q_indptr",
                        ..
                    })
                )
            },
        ),
        (
            "q_indptr not starting at 0",
            |t| t.q_indptr = vec![1, 2, 6],
            |r| {
                matches!(
                    r,
                    Err(Error::BadIndptr {
                        name: "q_indptr",
                        ..
                    })
                )
            },
        ),
        (
            "q_indptr decreasing",
            |t| t.q_indptr = vec![0, 5, 1],
            |r| {
                matches!(
                    r,
                    Err(Error::BadIndptr {
                        name: "q_indptr",
                        ..
                    })
                )
            },
        ),
        (
            "page_indptr too short",
            |t| t.page_indptr.pop().map(|_| ()).unwrap_or(()),
            |r| {
                matches!(
                    r,
                    Err(Error::BadIndptr {
                        name: "page_indptr",
                        ..
                    })
                )
            },
        ),
        (
            "page_indptr past page_indices",
            |t| t.page_indptr = vec![0, 2, 6],
            |r| {
                matches!(
                    r,
                    Err(Error::BadIndptr {
                        name: "page_indptr",
                        ..
                    })
                )
            },
        ),
        (
            "page_indptr decreasing",
            |t| t.page_indptr = vec![0, 3, 2],
            |r| {
                matches!(
                    r,
                    Err(Error::BadIndptr {
                        name: "page_indptr",
                        ..
                    })
                )
            },
        ),
    ]
}

#[test]
fn bad_tables_are_refused_with_the_named_error() {
    for (what, edit, expect) in table_cases() {
        let mut t = tables();
        edit(&mut t);
        let r = validate(&t);
        assert!(expect(&r), "{what}: got {r:?}");
    }
    assert_eq!(validate(&tables()), Ok(vec![1, 4]));
}

#[test]
fn catalogue_size() {
    // The reliability issue asks for at least 25 bad inputs through the public API; with the GPU
    // case's tensor checks (short q, long o, f32 q, misaligned q, null q) this catalogue has more.
    assert!(config_cases().len() + table_cases().len() >= 25);
}
