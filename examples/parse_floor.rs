//! The physical floor of the symbol table's build: the CPU of the tree-sitter parses alone of
//! a tree's files, beside the CPU of each step the build adds (decoding, the extraction walk,
//! encoding, freeing the trees), on one thread. Compare the first figure with `ctags -R`'s
//! CPU over the same tree (bench/README.md, "The symbol index").
//!
//!   cargo run --release --no-default-features --example parse_floor -- DIR [ROUNDS]
//!
//! Files are read into memory first (not timed); only files with a symbol grammar count.

#[cfg(unix)]
fn main() {
    floor::main();
}

/// Thread CPU clocks are a Unix API; elsewhere the example only says so.
#[cfg(not(unix))]
fn main() {
    eprintln!("parse_floor measures thread CPU time: Unix only");
}

#[cfg(unix)]
mod floor {
    use clarvis_agent_tools::symbols::extract::extract;
    use clarvis_agent_tools::symbols::stored::codec;
    use clarvis_agent_tools::syntax::defs::has_symbols;
    use clarvis_agent_tools::syntax::parse::{parse_masked, TOOL_BUDGET};
    use clarvis_agent_tools::syntax::{grammar_for, Grammar};
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    /// This thread's CPU time.
    fn cpu() -> Duration {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock id and a valid out pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name();
            if name == ".git" || name == ".clarvis" {
                continue;
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }

    pub fn main() {
        let mut args = std::env::args().skip(1);
        let dir = PathBuf::from(args.next().expect("usage: parse_floor DIR [ROUNDS]"));
        let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(3);
        let mut paths = Vec::new();
        walk(&dir, &mut paths);
        paths.sort();
        let files: Vec<(Grammar, Vec<u8>)> = paths
            .iter()
            .filter_map(|p| {
                let g = grammar_for(&p.to_string_lossy()).filter(|g| has_symbols(*g))?;
                Some((g, std::fs::read(p).ok()?))
            })
            .collect();
        let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
        println!("{} files, {:.1} MB", files.len(), bytes as f64 / 1e6);
        // The same allocator as the tools' parses (the first parse installs it).
        let _ = parse_masked(Grammar::Rust, b"fn a() {}", TOOL_BUDGET, None);
        let texts: Vec<(Grammar, String)> = files
            .iter()
            .map(|(g, b)| (*g, String::from_utf8_lossy(b).into_owned()))
            .collect();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        for round in 0..rounds {
            // 1. tree-sitter alone: one parser per grammar, reused; the trees dropped apart.
            let mut parsers: Vec<(Grammar, tree_sitter::Parser)> = Vec::new();
            let (mut parse, mut free) = (Duration::ZERO, Duration::ZERO);
            for (g, text) in &texts {
                let t0 = cpu();
                if !parsers.iter().any(|(pg, _)| pg == g) {
                    let mut p = tree_sitter::Parser::new();
                    p.set_language(&g.language()).expect("grammar");
                    parsers.push((*g, p));
                }
                let p = &mut parsers
                    .iter_mut()
                    .find(|(pg, _)| pg == g)
                    .expect("parser")
                    .1;
                let tree = p.parse(text.as_bytes(), None).expect("tree");
                let t1 = cpu();
                drop(tree);
                parse += t1 - t0;
                free += cpu() - t1;
            }
            // 2. The build's steps: decode + parse (parse_masked), extract, encode, release.
            let (mut p2, mut ex, mut en, mut rel) = (
                Duration::ZERO,
                Duration::ZERO,
                Duration::ZERO,
                Duration::ZERO,
            );
            let mut out = Vec::new();
            let mut encoded = 0usize;
            for (g, b) in &files {
                let t0 = cpu();
                let Ok(parsed) = parse_masked(*g, b, TOOL_BUDGET, None) else {
                    continue;
                };
                let t1 = cpu();
                let syms = extract(&parsed);
                let t2 = cpu();
                out.clear();
                codec::encode(&syms, &mut out);
                encoded += out.len();
                drop(syms);
                let t3 = cpu();
                drop(parsed);
                p2 += t1 - t0;
                ex += t2 - t1;
                en += t3 - t2;
                rel += cpu() - t3;
            }
            println!(
                "round {round}: tree-sitter parse alone {:.0} ms (+ free {:.0} ms) | build steps: \
                 decode+parse {:.0} ms, extract {:.0} ms, encode {:.0} ms ({:.1} MB), free {:.0} ms, \
                 total {:.0} ms (thread CPU)",
                ms(parse),
                ms(free),
                ms(p2),
                ms(ex),
                ms(en),
                encoded as f64 / 1e6,
                ms(rel),
                ms(p2 + ex + en + rel)
            );
        }
    }
}
