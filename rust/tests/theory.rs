//! The engine against queueing theory and its own promises (no Python needed).

use iolab_sim::{prepare, simulate, Control};
use serde_json::{json, Value};

fn run(request: Value) -> Value {
    serde_json::from_str(&simulate(&request.to_string()).expect("valid request")).unwrap()
}

fn close(got: f64, want: f64, tol: f64) -> bool {
    (got - want).abs() <= tol * want.abs()
}

fn cap(id: &str, ops: f64, service: &str) -> Value {
    json!({"id": id, "label": id, "kind": "disk", "cap": {"ops_per_s": ops, "service": service}})
}

fn delay(id: &str, distribution: &str) -> Value {
    json!({"id": id, "label": id, "kind": "service", "delay": {"distribution": distribution, "cv": 0.5}})
}

fn job(population: u64, rate: Option<f64>, arrival: &str) -> Value {
    json!({"name": "j", "group": "j", "client": 0, "population": population, "working_set": 1 << 30,
           "rate": rate, "arrival": arrival, "sequential": false, "block": 4096})
}

fn visit(resource: &str, latency: f64) -> Value {
    json!({"visit": {"resource": resource, "bytes": 4096, "latency": latency}})
}

fn class(route: Vec<Value>) -> Value {
    json!({"id": "c", "job": 0, "direction": "read", "probability": 1.0, "bytes": 4096,
           "route": route, "outcome": null, "cache": null, "background": []})
}

#[test]
fn open_exponential_station_matches_mm1() {
    // λ = 700/s, μ = 1000/s: sojourn ~ Exp(μ − λ).
    let r = run(json!({
        "network": {"resources": [cap("k", 1000.0, "exponential")], "jobs": [job(1 << 40, Some(700.0), "poisson")],
                    "classes": [class(vec![visit("k", 0.0)])]},
        "options": {"seed": 3, "ios": 1_000_000}
    }));
    let lat = &r["total"]["latency"];
    let mean = 1.0 / 300.0;
    assert!(close(lat["mean"].as_f64().unwrap(), mean, 0.03), "{lat}");
    assert!(close(lat["p99"].as_f64().unwrap(), 100f64.ln() * mean, 0.03), "{lat}");
    assert!(close(r["total"]["iops"].as_f64().unwrap(), 700.0, 0.01));
    assert!(close(r["resources"][0]["utilization"].as_f64().unwrap(), 0.7, 0.01));
}

#[test]
fn lognormal_delay_has_its_distribution() {
    // A route of one lognormal delay (mean 2 ms, cv 0.5): the latencies are the draws.
    // sigma² = ln(1 + cv²), median = mean / sqrt(1 + cv²), quantile q = median × e^(sigma z_q).
    let r = run(json!({
        "network": {"resources": [delay("z", "lognormal")], "jobs": [job(64, None, "uniform")],
                    "classes": [class(vec![visit("z", 0.002)])]},
        "options": {"seed": 5, "ios": 400_000}
    }));
    let lat = &r["total"]["latency"];
    let sigma = 1.25f64.ln().sqrt();
    let median = 0.002 / 1.25f64.sqrt();
    let q = |z: f64| median * (sigma * z).exp();
    // The mean's standard error is 0.08 %; quantiles are reported within 0.4 % (buckets).
    assert!(close(lat["mean"].as_f64().unwrap(), 0.002, 0.004), "{lat}");
    assert!(close(lat["p50"].as_f64().unwrap(), median, 0.01), "{lat}");
    assert!(close(lat["p90"].as_f64().unwrap(), q(1.2815515655), 0.01), "{lat}");
    assert!(close(lat["p99"].as_f64().unwrap(), q(2.3263478740), 0.02), "{lat}");
    assert!(close(lat["p99.9"].as_f64().unwrap(), q(3.0902323062), 0.05), "{lat}");
}

/// Exact mean value analysis: throughput and response time at population `n`.
fn mva(demands: &[f64], think: f64, n: u32) -> (f64, f64) {
    let mut q = vec![0.0; demands.len()];
    let (mut x, mut r) = (0.0, 0.0);
    for k in 1..=n {
        let rk: Vec<f64> = demands.iter().zip(&q).map(|(d, qi)| d * (1.0 + qi)).collect();
        r = rk.iter().sum::<f64>();
        x = k as f64 / (r + think);
        q = rk.iter().map(|ri| x * ri).collect();
    }
    (x, r + think)
}

#[test]
fn closed_product_form_network_matches_mva() {
    let r = run(json!({
        "network": {"resources": [cap("a", 1000.0, "exponential"), cap("b", 500.0, "exponential"),
                                  delay("z", "exponential")],
                    "jobs": [job(6, None, "uniform")],
                    "classes": [class(vec![visit("a", 0.0), visit("b", 0.0), visit("z", 0.004)])]},
        "options": {"seed": 5, "ios": 400_000}
    }));
    let (x, rt) = mva(&[0.001, 0.002], 0.004, 6);
    assert!(close(r["total"]["iops"].as_f64().unwrap(), x, 0.02), "{} vs {x}", r["total"]["iops"]);
    assert!(close(r["total"]["latency"]["mean"].as_f64().unwrap(), rt, 0.02));
}

#[test]
fn think_time_is_a_wait_between_ios_outside_their_latency() {
    // A closed loop of 6 IOs through two exponential stations, each slot waiting a fixed
    // 4 ms between its IO's completion and the next issue: MVA with a think time Z = 4 ms.
    // The waits are not part of the IOs' latency.
    let mut j = job(6, None, "uniform");
    j["think"] = json!(0.004);
    let r = run(json!({
        "network": {"resources": [cap("a", 1000.0, "exponential"), cap("b", 500.0, "exponential")],
                    "jobs": [j],
                    "classes": [class(vec![visit("a", 0.0), visit("b", 0.0)])]},
        "options": {"seed": 5, "ios": 400_000}
    }));
    let (x, cycle) = mva(&[0.001, 0.002], 0.004, 6);
    assert!(close(r["total"]["iops"].as_f64().unwrap(), x, 0.02), "{} vs {x}", r["total"]["iops"]);
    assert!(close(r["total"]["latency"]["mean"].as_f64().unwrap(), cycle - 0.004, 0.03));
}

#[test]
fn think_time_alone_paces_a_job_whose_ios_take_no_time() {
    // Slots that only think (no cap, no latency on the route): each slot issues one IO per
    // 1 ms, so 8 slots give 8,000 IOPS, and the run is not refused as taking no time.
    let mut j = job(8, None, "uniform");
    j["think"] = json!(0.001);
    let r = run(json!({
        "network": {"resources": [delay("z", "deterministic")], "jobs": [j],
                    "classes": [class(vec![visit("z", 0.0)])]},
        "options": {"seed": 1, "ios": 100_000}
    }));
    assert!(close(r["total"]["iops"].as_f64().unwrap(), 8000.0, 0.001), "{}", r["total"]["iops"]);
}

#[test]
fn token_bucket_delivers_its_rate() {
    let r = run(json!({
        "network": {"resources": [cap("k", 2300.0, "deterministic")], "jobs": [job(4, None, "uniform")],
                    "classes": [class(vec![visit("k", 0.0)])]},
        "options": {"seed": 1, "duration": 10.0}
    }));
    assert!(close(r["total"]["iops"].as_f64().unwrap(), 2300.0, 1e-4), "{}", r["total"]["iops"]);
    assert!(close(r["resources"][0]["utilization"].as_f64().unwrap(), 1.0, 1e-6));
    for p in r["series"].as_array().unwrap() {
        assert!(close(p["iops"].as_f64().unwrap(), 2300.0, 0.005), "{p}");
    }
}

#[test]
fn burst_credits_run_out_then_baseline() {
    // 2,300 baseline, 3,500 burst, a bucket for 10 s of burst, driven hard for 20 s.
    let r = run(json!({
        "network": {"resources": [{"id": "d", "label": "P20", "kind": "disk",
                     "cap": {"ops_per_s": 2300.0, "burst": {"ops_per_s": 3500.0, "credit_ops": 12000.0, "initial": 1.0}}}],
                    "jobs": [job(16, None, "uniform")], "classes": [class(vec![visit("d", 0.0)])]},
        "options": {"seed": 1, "duration": 20.0, "interval": 1.0}
    }));
    let s = r["series"].as_array().unwrap();
    assert_eq!(s.len(), 20);
    for p in &s[..9] {
        assert!(close(p["iops"].as_f64().unwrap(), 3500.0, 1e-3), "{p}");
    }
    for p in &s[11..] {
        assert!(close(p["iops"].as_f64().unwrap(), 2300.0, 1e-3), "{p}");
    }
    let credits = r["credits"][0]["series"].as_array().unwrap();
    assert!(close(credits[0]["ops"].as_f64().unwrap(), 12000.0 - 1200.0, 1e-3));
    assert!(credits[15]["ops"].as_f64().unwrap() < 1.0);
}

#[test]
fn fork_join_waits_for_the_slowest_branch() {
    let r = run(json!({
        "network": {"resources": [delay("x", "deterministic"), delay("y", "deterministic")],
                    "jobs": [job(3, None, "uniform")],
                    "classes": [class(vec![json!({"fork": {"choose": 2, "pick": "random",
                        "branches": [[visit("x", 0.001)], [visit("y", 0.003)]]}})])]},
        "options": {"seed": 1, "ios": 1000}
    }));
    let lat = &r["total"]["latency"];
    assert!(close(lat["mean"].as_f64().unwrap(), 0.003, 1e-9));
    assert!(close(lat["max"].as_f64().unwrap(), 0.003, 1e-9));
}

#[test]
fn same_seed_same_answer() {
    let req = |seed: u64| {
        json!({
            "network": {"resources": [cap("a", 1000.0, "exponential"), delay("z", "lognormal")],
                        "jobs": [job(4, None, "uniform")],
                        "classes": [class(vec![visit("a", 0.0), visit("z", 0.002)])]},
            "options": {"seed": seed, "ios": 20_000, "replications": 3}
        })
        .to_string()
    };
    assert_eq!(simulate(&req(9)).unwrap(), simulate(&req(9)).unwrap());
    assert_ne!(simulate(&req(9)).unwrap(), simulate(&req(10)).unwrap());
}

#[test]
fn parallel_replications_match_sequential_byte_for_byte() {
    // A striped route (a cap fed by another, taken at once), exponential service, a
    // lognormal delay and a round-robin fork: every random draw and chained visit counts.
    let stripe = json!({"fork": {"branches": [[visit("d0", 0.0)], [visit("d1", 0.0)], [visit("d2", 0.0)]],
                                  "choose": 1, "pick": "random"}});
    let rr = json!({"fork": {"branches": [[visit("e0", 0.0)], [visit("e1", 0.0)]], "choose": 1, "pick": "round-robin"}});
    let request = json!({
        "network": {"resources": [cap("vm", 20_000.0, "exponential"), cap("d0", 5_000.0, "deterministic"),
                                  cap("d1", 5_000.0, "deterministic"), cap("d2", 5_000.0, "exponential"),
                                  cap("e0", 9_000.0, "deterministic"), cap("e1", 9_000.0, "deterministic"),
                                  delay("lat", "lognormal")],
                    "jobs": [job(32, None, "uniform")],
                    "classes": [class(vec![visit("vm", 0.0), stripe, rr, visit("lat", 0.001)])]},
        "options": {"seed": 11, "ios": 30_000, "replications": 7}
    })
    .to_string();
    let prepared = prepare(&request).unwrap();
    let parallel = iolab_sim::to_json(&prepared.run(&Control::new(7)));
    let sequential = iolab_sim::to_json(&prepared.run_sequential(&Control::new(7)));
    assert_eq!(parallel, sequential);
    let doc: Value = serde_json::from_str(&parallel).unwrap();
    assert_eq!(doc["replications"].as_array().map(|a| a.len()), Some(7), "{doc}");
}

#[test]
fn cancel_returns_a_partial_answer() {
    let req = json!({
        "network": {"resources": [cap("a", 1000.0, "exponential")], "jobs": [job(4, None, "uniform")],
                    "classes": [class(vec![visit("a", 0.0)])]},
        "options": {"seed": 1, "ios": 1_000_000_000u64}
    });
    let p = prepare(&req.to_string()).unwrap();
    let control = Control::new(1);
    control.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let report = p.run(&control);
    assert!(report.partial);
    assert_eq!(report.stopped, "cancelled");
    assert!(report.ios < 10_000);
}

#[test]
fn bad_references_name_the_field() {
    let req = json!({
        "network": {"resources": [], "jobs": [job(1, None, "uniform")], "classes": [class(vec![visit("nope", 0.0)])]},
        "options": {"ios": 10}
    });
    let e = prepare(&req.to_string()).unwrap_err();
    assert_eq!(e.field, "network.classes[0].route[0].visit.resource");
    assert!(e.message.contains("nope"));
    let both = json!({"network": {"resources": [], "jobs": [], "classes": []}, "options": {"ios": 10, "duration": 1.0}});
    assert_eq!(prepare(&both.to_string()).unwrap_err().field, "options");
}

#[test]
fn a_run_where_nothing_can_happen_stops_as_stalled() {
    // A hold inside a hold of the same one-slot limit waits for itself.
    let r = run(json!({
        "network": {"resources": [delay("z", "deterministic")],
                    "slot_limits": [{"id": "s", "label": "s", "kind": "session", "slots": 1}],
                    "jobs": [job(1, None, "uniform")],
                    "classes": [class(vec![json!({"hold": {"slot_limit": "s", "steps": [
                        {"hold": {"slot_limit": "s", "steps": [visit("z", 0.001)]}}]}})])]},
        "options": {"seed": 1, "ios": 10}
    }));
    assert_eq!(r["stopped"], "stalled");
    assert_eq!(r["partial"], true);
}

/// Writes acknowledged by a fast cap (the host cache) whose flush runs in the background
/// over a slower one, `population` of them in flight; `cache`: whether the class names a
/// host cache (else its flushes are counted by job).
fn write_back(population: u64, cache: bool, replications: u64) -> String {
    let caches = if cache { json!([{"id": "hc", "label": "hc", "size": 1u64 << 30}]) } else { json!([]) };
    json!({
        "network": {"resources": [cap("cached", 20_000.0, "deterministic"), cap("slow", 10_000.0, "exponential")],
                    "caches": caches,
                    "jobs": [job(population, None, "uniform")],
                    "classes": [{"id": "w", "job": 0, "direction": "write", "probability": 1.0, "bytes": 4096,
                                 "route": [visit("cached", 0.0)], "outcome": null,
                                 "cache": if cache { json!("hc") } else { json!(null) },
                                 "background": [visit("slow", 0.0)]}]},
        "options": {"seed": 4, "ios": 100_000, "ramp": 0.5, "replications": replications}
    })
    .to_string()
}

#[test]
fn unflushed_writes_are_bounded_so_writes_run_at_the_flush_rate() {
    for (population, cache) in [(256, true), (512, false)] {
        let r: Value = serde_json::from_str(&simulate(&write_back(population, cache, 1)).unwrap()).unwrap();
        let iops = r["total"]["iops"].as_f64().unwrap();
        assert!(close(iops, 10_000.0, 0.03), "population {population}, cache {cache}: {iops} IOPS");
        // Little's law: the writes wait for the flushes (their latency is population / rate).
        let mean = r["total"]["latency"]["mean"].as_f64().unwrap();
        assert!(close(mean, population as f64 / iops, 0.03), "mean latency {mean} s at {iops} IOPS");
    }
}

#[test]
fn parked_writes_keep_replications_identical_to_sequential() {
    let prepared = prepare(&write_back(300, true, 3)).unwrap();
    let parallel = iolab_sim::to_json(&prepared.run(&Control::new(3)));
    let sequential = iolab_sim::to_json(&prepared.run_sequential(&Control::new(3)));
    assert_eq!(parallel, sequential);
}
