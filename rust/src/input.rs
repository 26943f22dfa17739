//! The plain data the simulator takes: a network (as iolab's `Network.to_dict()` writes it)
//! and the run's options. Units: bytes, seconds, ops/s, bytes/s.

use serde::Deserialize;

/// The whole request: what to simulate and how long.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Input {
    pub network: NetworkIn,
    pub options: Options,
}

/// How to run: stop after `ios` measured IOs or `duration` measured seconds (exactly one),
/// after `ramp` seconds that are not measured; `interval` seconds per point of the series
/// (chosen when absent); `replications` independent runs whose seeds derive from `seed`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields)]
pub struct Options {
    #[serde(default = "one")]
    pub seed: u64,
    #[serde(default)]
    pub ios: Option<u64>,
    #[serde(default)]
    pub duration: Option<f64>,
    #[serde(default)]
    pub ramp: f64,
    #[serde(default)]
    pub interval: Option<f64>,
    #[serde(default = "one_u32")]
    pub replications: u32,
}

fn one() -> u64 {
    1
}
fn one_u32() -> u32 {
    1
}
fn one_f64() -> f64 {
    1.0
}

#[derive(Deserialize, Debug, Clone)]
pub struct NetworkIn {
    pub resources: Vec<ResourceIn>,
    #[serde(default)]
    pub slot_limits: Vec<SlotLimitIn>,
    #[serde(default)]
    pub caches: Vec<CacheIn>,
    pub jobs: Vec<JobIn>,
    pub classes: Vec<ClassIn>,
}

#[derive(Deserialize, Debug, Clone)]
pub struct ResourceIn {
    pub id: String,
    pub label: String,
    pub kind: String,
    #[serde(default)]
    pub cap: Option<CapIn>,
    #[serde(default)]
    pub delay: Option<DelayIn>,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    Deterministic,
    Exponential,
}

fn deterministic() -> Service {
    Service::Deterministic
}

#[derive(Deserialize, Debug, Clone)]
pub struct CapIn {
    #[serde(default)]
    pub ops_per_s: Option<f64>,
    #[serde(default)]
    pub bytes_per_s: Option<f64>,
    #[serde(default)]
    pub io_unit: Option<u64>,
    #[serde(default)]
    pub burst: Option<BurstIn>,
    #[serde(default = "deterministic")]
    pub service: Service,
}

#[derive(Deserialize, Debug, Clone)]
pub struct BurstIn {
    #[serde(default)]
    pub ops_per_s: Option<f64>,
    #[serde(default)]
    pub bytes_per_s: Option<f64>,
    #[serde(default)]
    pub credit_ops: Option<f64>,
    #[serde(default)]
    pub credit_bytes: Option<f64>,
    #[serde(default = "one_f64")]
    pub initial: f64,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Distribution {
    Deterministic,
    Exponential,
    Lognormal,
}

fn lognormal() -> Distribution {
    Distribution::Lognormal
}
fn half() -> f64 {
    0.5
}

#[derive(Deserialize, Debug, Clone)]
pub struct DelayIn {
    #[serde(default = "lognormal")]
    pub distribution: Distribution,
    #[serde(default = "half")]
    pub cv: f64,
}

#[derive(Deserialize, Debug, Clone)]
pub struct SlotLimitIn {
    pub id: String,
    pub label: String,
    pub kind: String,
    pub slots: u64,
}

#[derive(Deserialize, Debug, Clone)]
pub struct CacheIn {
    pub id: String,
    pub label: String,
    pub size: u64,
    #[serde(default = "yes")]
    pub warm: bool,
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Arrival {
    Uniform,
    Poisson,
}

fn uniform() -> Arrival {
    Arrival::Uniform
}
fn block() -> u64 {
    4096
}

#[derive(Deserialize, Debug, Clone)]
pub struct JobIn {
    pub name: String,
    pub group: String,
    #[serde(default)]
    pub client: u64,
    pub population: u64,
    pub working_set: u64,
    #[serde(default)]
    pub rate: Option<f64>,
    /// Seconds each IO slot waits between an IO's completion and the next issue (fio's
    /// thinktime, spread over the IOs between two stalls).
    #[serde(default)]
    pub think: f64,
    #[serde(default = "uniform")]
    pub arrival: Arrival,
    #[serde(default)]
    pub sequential: bool,
    #[serde(default = "block")]
    pub block: u64,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Hit,
    Miss,
}

#[derive(Deserialize, Debug, Clone)]
pub struct ClassIn {
    pub id: String,
    pub job: usize,
    pub direction: Direction,
    pub probability: f64,
    pub bytes: u64,
    pub route: Vec<StepIn>,
    #[serde(default)]
    pub outcome: Option<Outcome>,
    #[serde(default)]
    pub cache: Option<String>,
    #[serde(default)]
    pub background: Vec<StepIn>,
}

#[derive(Deserialize, Debug, Clone)]
#[serde(rename_all = "lowercase")]
pub enum StepIn {
    Visit(VisitIn),
    Fork(ForkIn),
    Hold(HoldIn),
    Load(LoadIn),
}

#[derive(Deserialize, Debug, Clone)]
pub struct VisitIn {
    pub resource: String,
    pub bytes: u64,
    #[serde(default)]
    pub latency: f64,
}

/// A load delay (see `crate::load`): spend a time at delay `resource` whose mean follows the
/// recent utilization of cap `cap`: `scale × ((u − onset) / (1 − onset))^exponent` seconds,
/// clamped to 0..`scale`, the utilization measured over `window` seconds. `bytes`: the IO's
/// size, what it costs the cap.
#[derive(Deserialize, Debug, Clone)]
pub struct LoadIn {
    pub resource: String,
    pub bytes: u64,
    pub cap: String,
    pub scale: f64,
    #[serde(default)]
    pub onset: f64,
    #[serde(default = "one_f64")]
    pub exponent: f64,
    #[serde(default = "load_window")]
    pub window: f64,
}

fn load_window() -> f64 {
    0.01
}

#[derive(Deserialize, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[serde(rename_all = "kebab-case")]
pub enum Pick {
    Random,
    RoundRobin,
}

fn random() -> Pick {
    Pick::Random
}
fn one_usize() -> usize {
    1
}

#[derive(Deserialize, Debug, Clone)]
pub struct ForkIn {
    pub branches: Vec<Vec<StepIn>>,
    #[serde(default = "one_usize")]
    pub choose: usize,
    #[serde(default = "random")]
    pub pick: Pick,
}

#[derive(Deserialize, Debug, Clone)]
pub struct HoldIn {
    pub slot_limit: String,
    pub steps: Vec<StepIn>,
}
