//! Runs a JSON request from a file and prints the report: `cargo run --release --example
//! simulate -- request.json` (for profiling the engine without Python).

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: simulate REQUEST.json");
    let text = std::fs::read_to_string(&path).expect("readable request file");
    let t0 = Instant::now();
    let report = iolab_sim::simulate(&text).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("wall {:.3} s", t0.elapsed().as_secs_f64());
    println!("{report}");
}
