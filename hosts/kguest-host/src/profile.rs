//! A scheduling profile of several plugins, run as kube-scheduler runs one
//! cycle: every plugin's PreFilter, then Filter over the nodes (a node
//! passes only if every Filter passes), PostFilter when none passed,
//! PreScore/Score/NormalizeScore on the nodes that passed, weights, the
//! highest total, then Reserve, Permit, PreBind, Bind and PostBind on the
//! chosen node.

use crate::config::PluginConfig;
use crate::error::{CallError, LoadError};
use crate::plugin::{CycleCalls, Plugin};
use crate::points::{ExtensionPoint, PointLists, PointOrder};
use crate::runtime::Runtime;
use crate::schedconfig::SchedulerProfile;
use crate::schedule::EXCLUDED_BY_PREFILTER;
use crate::snapshot::Cycle;
use crate::types::{
    Code, Hook, NormalizeScoreResult, PermitResult, PostFilterResult, PreFilterResult, Status,
};

/// kube-scheduler's `MaxNodeScore`: every score, after NormalizeScore and
/// before the weight, must be in `0..=MAX_NODE_SCORE`.
pub const MAX_NODE_SCORE: i64 = 100;

/// One plugin of a [`Profile`].
#[derive(Debug)]
pub struct ProfilePlugin {
    /// Its name in the profile (`plugins.multiPoint.enabled[].name`).
    pub name: String,
    /// The loaded guest, with its guest config.
    pub plugin: Plugin,
    /// Its Score weight (kube-scheduler turns 0 into 1).
    pub weight: i64,
}

/// Why a profile cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileError {
    /// No plugin.
    Empty,
    /// Two plugins share a name.
    DuplicateName(String),
    /// A negative weight (kube-scheduler's validation refuses it).
    NegativeWeight { plugin: String, weight: i64 },
    /// An extension point's own lists, as kube-scheduler refuses them.
    Points(String),
}

impl std::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileError::Empty => f.write_str("the profile has no plugin"),
            ProfileError::DuplicateName(n) => write!(f, "plugin `{n}` is in the profile twice"),
            ProfileError::NegativeWeight { plugin, weight } => {
                write!(
                    f,
                    "plugin `{plugin}` has weight {weight}; weights must be >= 0"
                )
            }
            ProfileError::Points(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for ProfileError {}

/// A hook call failed (trap, deadline, ...): the cycle ends there, as KSW's
/// host turns such a failure into an `Error` status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileCallError {
    /// The plugin's name.
    pub plugin: String,
    /// What failed.
    pub error: CallError,
}

impl std::fmt::Display for ProfileCallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "plugin `{}`: {}", self.plugin, self.error)
    }
}

impl std::error::Error for ProfileCallError {}

/// What became of one hook of one plugin in a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// The guest does not export the hook, so KSW does not register the
    /// plugin at that extension point: nothing ran.
    NotExported,
    /// The guest exports the hook but the profile's configuration leaves
    /// the plugin out of the hook's extension point
    /// ([`ExtensionPoint`], e.g. `plugins.score.disabled`): nothing ran.
    Disabled,
    /// The hook exists but kube-scheduler would not call it here; the
    /// text says why.
    NotRun(&'static str),
    /// It ran.
    Ran(T),
}

impl<T> Outcome<T> {
    /// The result, if the hook ran.
    pub fn ran(&self) -> Option<&T> {
        match self {
            Outcome::Ran(v) => Some(v),
            _ => None,
        }
    }
}

/// One plugin's score for one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginScore {
    /// What Score returned.
    pub raw: i64,
    /// After NormalizeScore (equal to `raw` without it).
    pub normalized: i64,
    /// `normalized` times the plugin's weight: what the total adds.
    pub weighted: i64,
}

/// One node's outcome in a profile cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileNode {
    /// `metadata.name`.
    pub node: String,
    /// Each plugin's Filter, in profile order. kube-scheduler stops at the
    /// first Filter that rejects a node: the later ones are `NotRun`.
    pub filter: Vec<Outcome<Status>>,
    /// The node's status: success when every Filter passed, else the
    /// first rejection (or PreFilter's, or [`EXCLUDED_BY_PREFILTER`]).
    pub status: Status,
    /// Each plugin's Score, in profile order.
    pub score: Vec<Outcome<Result<PluginScore, Status>>>,
    /// The sum of the weighted scores, when the node was scored.
    pub total: Option<i64>,
}

/// One plugin's cycle-wide hooks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginCycle {
    /// The plugin's name.
    pub name: String,
    /// Its weight (0 made 1).
    pub weight: i64,
    pub prefilter: Outcome<PreFilterResult>,
    pub postfilter: Outcome<PostFilterResult>,
    pub prescore: Outcome<Status>,
    pub normalize: Outcome<NormalizeScoreResult>,
    pub reserve: Outcome<Status>,
    pub permit: Outcome<PermitResult>,
    pub prebind: Outcome<Status>,
    pub bind: Outcome<Status>,
    pub postbind: Outcome<()>,
    pub unreserve: Outcome<()>,
}

/// How a profile cycle ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CycleOutcome {
    /// Bound to `node`: by the plugin `by`, or, when every Bind skipped or
    /// none is exported, by kube-scheduler's DefaultBinder (`None`).
    Bound { node: String, by: Option<String> },
    /// No node passed Filter (PostFilter's outcome is in the plugins).
    Unschedulable,
    /// A plugin's Permit said Wait: kube-scheduler holds the pod on `node`
    /// until it is allowed, rejected or times out; the report stops there.
    Waiting { node: String, plugin: String },
    /// A hook at `hook` ended the cycle: an `Error` status, a rejection at
    /// Reserve/Permit/PreBind/Bind (Unreserve then ran), or a score out of
    /// range.
    Failed {
        plugin: String,
        hook: Hook,
        status: Status,
    },
}

/// What a profile decided in one cycle ([`Profile::schedule`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileReport {
    /// Per plugin, in profile order.
    pub plugins: Vec<PluginCycle>,
    /// Per node, in snapshot order.
    pub nodes: Vec<ProfileNode>,
    /// The node scoring picked (highest total; ties go to the first in
    /// node order), or the one node that passed Filter.
    pub chosen: Option<String>,
    /// How many nodes shared the highest total (1: no tie).
    pub tied: usize,
    /// How the cycle ended.
    pub outcome: CycleOutcome,
}

/// Plugins run together as one kube-scheduler profile.
#[derive(Debug)]
pub struct Profile {
    plugins: Vec<ProfilePlugin>,
    /// The plugins at each extension point, in the order they run there.
    order: PointOrder,
}

const PREFILTER_REJECTED: &str =
    "an earlier plugin's PreFilter returned UnschedulableAndUnresolvable (or left no node)";
const PREFILTER_SKIP: &str = "this plugin's PreFilter returned Skip";
const FILTER_REJECTED: &str = "an earlier plugin's Filter rejected the node";
const NOT_CANDIDATE: &str = "the node was not a candidate (PreFilter)";
const NO_FEASIBLE: &str = "no node passed Filter";
const FEASIBLE: &str = "a node passed Filter";
const ONE_FEASIBLE: &str = "only one node passed Filter: kube-scheduler picks it unscored";
const PRESCORE_SKIP: &str = "this plugin's PreScore returned Skip";
const NOT_FEASIBLE: &str = "the node did not pass Filter";
const CYCLE_ENDED: &str = "the cycle ended before this hook";
const POSTFILTER_DONE: &str =
    "an earlier plugin's PostFilter succeeded or returned UnschedulableAndUnresolvable";
const BOUND_EARLIER: &str = "an earlier plugin's Bind bound the pod";

impl Profile {
    /// A profile of `plugins`, in the order kube-scheduler calls them, each
    /// at every extension point its hooks give it (all `multiPoint`).
    pub fn new(plugins: Vec<ProfilePlugin>) -> Result<Profile, ProfileError> {
        Profile::with_points(plugins, &[])
    }

    /// A profile of `plugins` (its `multiPoint` plugins, in order) with
    /// each extension point's own lists, which enable plugins there first
    /// or disable them there ([`PointOrder::expand`]).
    pub fn with_points(
        mut plugins: Vec<ProfilePlugin>,
        points: &[(ExtensionPoint, PointLists)],
    ) -> Result<Profile, ProfileError> {
        if plugins.is_empty() {
            return Err(ProfileError::Empty);
        }
        for (i, p) in plugins.iter().enumerate() {
            if plugins[..i].iter().any(|o| o.name == p.name) {
                return Err(ProfileError::DuplicateName(p.name.clone()));
            }
            if p.weight < 0 {
                return Err(ProfileError::NegativeWeight {
                    plugin: p.name.clone(),
                    weight: p.weight,
                });
            }
        }
        for p in &mut plugins {
            if p.weight == 0 {
                p.weight = 1;
            }
        }
        let exports: Vec<(&str, _)> = plugins
            .iter()
            .map(|p| (p.name.as_str(), p.plugin.hooks()))
            .collect();
        let order = PointOrder::expand(&exports, points).map_err(ProfileError::Points)?;
        Ok(Profile { plugins, order })
    }

    /// Loads the wasm plugins of a `KubeSchedulerConfiguration` profile
    /// ([`scheduler_profiles`](crate::scheduler_profiles)): each guest read
    /// from its `guestURL` as KSW reads it, with its `guestConfig`,
    /// `logSeverity` and `args`, over `base` (limits, handle). Fails with
    /// the plugin's name and its load error.
    pub fn from_config(
        runtime: &Runtime,
        config: &SchedulerProfile,
        base: &PluginConfig,
    ) -> Result<Profile, (String, LoadError)> {
        let mut plugins = Vec::new();
        for p in &config.plugins {
            let guest_args = if p.args.is_empty() {
                Vec::new()
            } else {
                std::iter::once(p.guest_url.clone())
                    .chain(p.args.iter().cloned())
                    .collect()
            };
            let plugin_config = PluginConfig {
                guest_config: p.guest_config.as_bytes().into(),
                log_severity: p.log_severity,
                args: guest_args,
                ..base.clone()
            };
            let plugin = Plugin::from_guest_url(runtime, &p.guest_url, plugin_config)
                .map_err(|e| (p.name.clone(), e))?;
            plugins.push(ProfilePlugin {
                name: p.name.clone(),
                plugin,
                weight: p.weight,
            });
        }
        Profile::with_points(plugins, &config.points).map_err(|e| {
            (
                config.scheduler_name.clone(),
                LoadError::InvalidConfig(e.to_string()),
            )
        })
    }

    /// The plugins, in profile order.
    pub fn plugins(&self) -> &[ProfilePlugin] {
        &self.plugins
    }

    /// The plugins (indices into [`plugins`](Profile::plugins)) that run at
    /// `point`, in the order they run there.
    pub fn at(&self, point: ExtensionPoint) -> &[usize] {
        self.order.at(point)
    }

    /// Whether plugin `i` calls `hook`: its guest exports it, and the
    /// profile has the plugin at the hook's extension point.
    pub fn runs(&self, i: usize, hook: Hook) -> bool {
        self.plugins[i].plugin.hooks().contains(hook)
            && ExtensionPoint::of(hook).is_none_or(|point| self.order.runs(i, point))
    }

    /// What plugin `i`'s `hook` is when it did not run for `why`: not
    /// exported, never called by KSW (its main hook missing), left out by
    /// the configuration, or not run for `why`.
    fn not_run<T>(&self, i: usize, hook: Hook, why: &'static str) -> Outcome<T> {
        let hooks = self.plugins[i].plugin.hooks();
        if !hooks.contains(hook) {
            return Outcome::NotExported;
        }
        match ExtensionPoint::of(hook) {
            Some(point) if !point.ksw_registers(hooks) => Outcome::NotRun(ORPHAN),
            Some(point) if !self.order.runs(i, point) => Outcome::Disabled,
            _ => Outcome::NotRun(why),
        }
    }

    /// Runs `cycle`'s pod through the profile as kube-scheduler runs a
    /// scheduling and binding cycle:
    ///
    /// 1. Each PreFilter in order, as kube-scheduler 1.33 runs them: `Skip`
    ///    skips that plugin's Filter; `UnschedulableAndUnresolvable` rejects
    ///    every node and the later PreFilters do not run; `Unschedulable`
    ///    rejects every node but the later PreFilters still run (for
    ///    preemption; the last such status is the nodes'); node names
    ///    restrict the candidates (their intersection; an empty one rejects
    ///    every node and stops).
    /// 2. Filter on every candidate node, plugin by plugin, stopping at the
    ///    first rejection for that node.
    /// 3. No node passed: PostFilter in order until one succeeds or returns
    ///    `UnschedulableAndUnresolvable`.
    /// 4. One node passed: it is chosen unscored (as kube-scheduler does).
    ///    Several: PreScore (`Skip` skips that plugin's Score), Score on
    ///    every node that passed, NormalizeScore, each score checked to be
    ///    in `0..=100`, times the weight, summed; the highest total wins.
    ///    kube-scheduler breaks ties at random; this picks the first tied
    ///    node in snapshot order ([`ProfileReport::tied`] says how many).
    /// 5. Reserve in order (a rejection runs every Unreserve in reverse
    ///    order), Permit (Wait stops the report: [`CycleOutcome::Waiting`]),
    ///    PreBind, Bind until one does not Skip, PostBind.
    ///
    /// An `Error` status anywhere ends the cycle
    /// ([`CycleOutcome::Failed`]); a hook a plugin does not export is
    /// [`Outcome::NotExported`], never a success. Only these plugins run:
    /// kube-scheduler's own default plugins, which share the profile in a
    /// real scheduler, are not simulated. A guest with only one of
    /// `reserve`/`unreserve` (which KSW loads, then calls the missing
    /// export of) has the other half `NotExported`.
    pub fn schedule(&self, cycle: &Cycle) -> Result<ProfileReport, ProfileCallError> {
        Run::new(self, cycle).run()
    }
}

struct Run<'a> {
    profile: &'a Profile,
    cycle: &'a Cycle,
    report: ProfileReport,
}

const ORPHAN: &str = "KSW registers this hook only beside its main hook (filter, score or bind)";

fn is_rejection(code: Code) -> bool {
    code == Code::UNSCHEDULABLE || code == Code::UNSCHEDULABLE_AND_UNRESOLVABLE
}

/// The status kube-scheduler's framework (1.33, `framework/runtime`)
/// returns when `plugin`'s `hook` fails: code Error and the plugin's reason
/// inside the framework's words (`running "<plugin>" filter plugin: ...`).
/// Rejections at Filter and at the binding phase pass as they are; the
/// scoring hooks wrap whatever is not a success.
pub fn framework_status(hook: Hook, plugin: &str, status: Status) -> Status {
    let reason = status.reason.as_deref().unwrap_or("");
    let text = match hook {
        Hook::PreScore => format!("running PreScore plugin {plugin:?}: {reason}"),
        Hook::Score => format!("running Score plugins: plugin {plugin:?} failed with: {reason}"),
        Hook::NormalizeScore => {
            format!("running Normalize on Score plugins: plugin {plugin:?} failed with: {reason}")
        }
        _ if is_rejection(status.code) => return status,
        Hook::PreFilter => format!("running PreFilter plugin {plugin:?}: {reason}"),
        Hook::Filter => format!("running {plugin:?} filter plugin: {reason}"),
        Hook::Reserve => format!("running Reserve plugin {plugin:?}: {reason}"),
        Hook::Permit => format!("running Permit plugin {plugin:?}: {reason}"),
        Hook::PreBind => format!("running PreBind plugin {plugin:?}: {reason}"),
        Hook::Bind => format!("running Bind plugin {plugin:?}: {reason}"),
        _ => return status,
    };
    Status {
        code: Code::ERROR,
        reason: Some(text),
    }
}

impl<'a> Run<'a> {
    fn new(profile: &'a Profile, cycle: &'a Cycle) -> Run<'a> {
        let plugins = (0..profile.plugins.len())
            .map(|i| {
                let p = &profile.plugins[i];
                PluginCycle {
                    name: p.name.clone(),
                    weight: p.weight,
                    prefilter: profile.not_run(i, Hook::PreFilter, CYCLE_ENDED),
                    postfilter: profile.not_run(i, Hook::PostFilter, CYCLE_ENDED),
                    prescore: profile.not_run(i, Hook::PreScore, CYCLE_ENDED),
                    normalize: profile.not_run(i, Hook::NormalizeScore, CYCLE_ENDED),
                    reserve: profile.not_run(i, Hook::Reserve, CYCLE_ENDED),
                    permit: profile.not_run(i, Hook::Permit, CYCLE_ENDED),
                    prebind: profile.not_run(i, Hook::PreBind, CYCLE_ENDED),
                    bind: profile.not_run(i, Hook::Bind, CYCLE_ENDED),
                    postbind: profile.not_run(i, Hook::PostBind, CYCLE_ENDED),
                    unreserve: profile.not_run(i, Hook::Unreserve, CYCLE_ENDED),
                }
            })
            .collect();
        Run {
            profile,
            cycle,
            report: ProfileReport {
                plugins,
                nodes: Vec::new(),
                chosen: None,
                tied: 0,
                outcome: CycleOutcome::Unschedulable,
            },
        }
    }

    fn call<T>(&self, i: usize, r: Result<T, CallError>) -> Result<T, ProfileCallError> {
        r.map_err(|error| ProfileCallError {
            plugin: self.profile.plugins[i].name.clone(),
            error,
        })
    }

    fn fail(
        &mut self,
        i: usize,
        hook: Hook,
        status: Status,
    ) -> Result<ProfileReport, ProfileCallError> {
        self.report.outcome = CycleOutcome::Failed {
            plugin: self.profile.plugins[i].name.clone(),
            hook,
            status,
        };
        Ok(std::mem::replace(&mut self.report, empty_report()))
    }

    fn run(mut self) -> Result<ProfileReport, ProfileCallError> {
        let profile = self.profile;
        let plugins = &profile.plugins;
        let n = plugins.len();
        // 1. PreFilter (kube-scheduler 1.33's RunPreFilterPlugins): Skip
        // skips the plugin's Filter; UnschedulableAndUnresolvable stops
        // here; Unschedulable is kept (the last one) and the other
        // PreFilters still run, for preemption; node names are intersected,
        // and an empty intersection stops here too.
        let mut rejected: Option<Status> = None;
        let mut stopped = false;
        let mut skip_filter = vec![false; n];
        let mut names: Option<Vec<String>> = None;
        for &i in profile.at(ExtensionPoint::PreFilter) {
            let p = &plugins[i];
            if !profile.runs(i, Hook::PreFilter) {
                continue;
            }
            if stopped {
                self.report.plugins[i].prefilter = Outcome::NotRun(PREFILTER_REJECTED);
                continue;
            }
            let result = self.call(i, p.plugin.prefilter(self.cycle))?;
            let status = result.status.clone();
            let given = result.node_names.clone();
            self.report.plugins[i].prefilter = Outcome::Ran(result);
            if status.code == Code::SKIP {
                skip_filter[i] = true;
                continue;
            }
            if status.code == Code::UNSCHEDULABLE_AND_UNRESOLVABLE {
                rejected = Some(status);
                stopped = true;
                continue;
            }
            if status.code == Code::UNSCHEDULABLE {
                rejected = Some(status);
                continue;
            }
            if !status.is_success() {
                let status = framework_status(Hook::PreFilter, &p.name, status);
                return self.fail(i, Hook::PreFilter, status);
            }
            if let Some(given) = given {
                let merged: Vec<String> = match names.take() {
                    None => given,
                    Some(had) => had.into_iter().filter(|n| given.contains(n)).collect(),
                };
                if merged.is_empty() {
                    rejected = Some(Status {
                        code: Code::UNSCHEDULABLE_AND_UNRESOLVABLE,
                        reason: Some(format!(
                            "node(s) didn't satisfy plugin(s) at PreFilter (last: {})",
                            p.name
                        )),
                    });
                    stopped = true;
                }
                names = Some(merged);
            }
        }

        // 2. Filter, plugin by plugin in the Filter point's order.
        let why_not = |i: usize, why: &'static str| profile.not_run(i, Hook::Filter, why);
        let filter_order = profile.at(ExtensionPoint::Filter);
        // Each plugin's node loop on one instance; dropped before PostFilter.
        let mut filters: Vec<Option<CycleCalls>> = (0..n)
            .map(|i| {
                filter_order
                    .contains(&i)
                    .then(|| plugins[i].plugin.cycle_calls(self.cycle))
            })
            .collect();
        for node in self.cycle.snapshot().nodes() {
            let name = node.name();
            let mut status = Status::success();
            let filter: Vec<Outcome<Status>> = if let Some(pre) = &rejected {
                status = pre.clone();
                (0..n).map(|i| why_not(i, PREFILTER_REJECTED)).collect()
            } else if names
                .as_ref()
                .is_some_and(|ns| !ns.iter().any(|x| x == name))
            {
                status = Status {
                    code: Code::UNSCHEDULABLE_AND_UNRESOLVABLE,
                    reason: Some(EXCLUDED_BY_PREFILTER.into()),
                };
                (0..n).map(|i| why_not(i, NOT_CANDIDATE)).collect()
            } else {
                let mut filter: Vec<Outcome<Status>> =
                    (0..n).map(|i| why_not(i, FILTER_REJECTED)).collect();
                for (k, &i) in filter_order.iter().enumerate() {
                    if !status.is_success() {
                        break;
                    }
                    if skip_filter[i] {
                        filter[i] = Outcome::NotRun(PREFILTER_SKIP);
                        continue;
                    }
                    let Some(calls) = filters[i].as_mut() else {
                        continue;
                    };
                    let s = self.call(i, calls.filter(name))?;
                    if !s.is_success() && !is_rejection(s.code) {
                        let failed = framework_status(Hook::Filter, &plugins[i].name, s.clone());
                        filter[i] = Outcome::Ran(s);
                        for &j in &filter_order[k + 1..] {
                            filter[j] = why_not(j, CYCLE_ENDED);
                        }
                        self.report.nodes.push(ProfileNode {
                            node: name.to_string(),
                            filter,
                            status: failed.clone(),
                            score: vec![],
                            total: None,
                        });
                        return self.fail(i, Hook::Filter, failed);
                    }
                    status = s.clone();
                    filter[i] = Outcome::Ran(s);
                }
                filter
            };
            self.report.nodes.push(ProfileNode {
                node: name.to_string(),
                filter,
                status,
                score: Vec::new(),
                total: None,
            });
        }
        drop(filters);
        let feasible: Vec<String> = self
            .report
            .nodes
            .iter()
            .filter(|d| d.status.is_success())
            .map(|d| d.node.clone())
            .collect();
        let score_why = if feasible.len() == 1 {
            ONE_FEASIBLE
        } else {
            NO_FEASIBLE
        };
        for d in &mut self.report.nodes {
            let why = if d.status.is_success() {
                score_why
            } else {
                NOT_FEASIBLE
            };
            d.score = (0..n)
                .map(|i| profile.not_run(i, Hook::Score, why))
                .collect();
        }

        // 3. PostFilter.
        if feasible.is_empty() {
            let statuses: Vec<(String, Code)> = self
                .report
                .nodes
                .iter()
                .map(|d| (d.node.clone(), d.status.code))
                .collect();
            for i in 0..n {
                self.report.plugins[i].prescore = profile.not_run(i, Hook::PreScore, NO_FEASIBLE);
            }
            let mut done = false;
            for &i in profile.at(ExtensionPoint::PostFilter) {
                let p = &plugins[i];
                if !profile.runs(i, Hook::PostFilter) {
                    continue;
                }
                if done {
                    self.report.plugins[i].postfilter = Outcome::NotRun(POSTFILTER_DONE);
                    continue;
                }
                let result = self.call(i, p.plugin.postfilter(self.cycle, &statuses))?;
                let code = result.status.code;
                let status = result.status.clone();
                self.report.plugins[i].postfilter = Outcome::Ran(result);
                // RunPostFilterPlugins stops at a success or at
                // UnschedulableAndUnresolvable.
                if code == Code::SUCCESS || code == Code::UNSCHEDULABLE_AND_UNRESOLVABLE {
                    done = true;
                } else if !is_rejection(code) {
                    return self.fail(i, Hook::PostFilter, status);
                }
            }
            self.report.outcome = CycleOutcome::Unschedulable;
            return Ok(self.report);
        }
        for i in 0..n {
            self.report.plugins[i].postfilter = profile.not_run(i, Hook::PostFilter, FEASIBLE);
        }

        // 4. Scoring.
        let chosen = if feasible.len() == 1 {
            for i in 0..n {
                self.report.plugins[i].prescore = profile.not_run(i, Hook::PreScore, ONE_FEASIBLE);
                self.report.plugins[i].normalize =
                    profile.not_run(i, Hook::NormalizeScore, ONE_FEASIBLE);
            }
            self.report.tied = 1;
            feasible[0].clone()
        } else {
            match self.score(&feasible)? {
                Ok(node) => node,
                Err((i, hook, status)) => return self.fail(i, hook, status),
            }
        };
        self.report.chosen = Some(chosen.clone());

        // 5. Binding.
        self.bind(&chosen)
    }

    /// PreScore, Score and NormalizeScore over `feasible`; the chosen node,
    /// or the hook that ended the cycle.
    #[allow(clippy::type_complexity)]
    fn score(
        &mut self,
        feasible: &[String],
    ) -> Result<Result<String, (usize, Hook, Status)>, ProfileCallError> {
        let profile = self.profile;
        let plugins = &profile.plugins;
        let mut skip = vec![false; plugins.len()];
        for &i in profile.at(ExtensionPoint::PreScore) {
            let p = &plugins[i];
            if !profile.runs(i, Hook::PreScore) {
                continue;
            }
            let status = self.call(i, p.plugin.prescore(self.cycle, feasible))?;
            self.report.plugins[i].prescore = Outcome::Ran(status.clone());
            if status.code == Code::SKIP {
                skip[i] = true;
            } else if !status.is_success() {
                let status = framework_status(Hook::PreScore, &p.name, status);
                return Ok(Err((i, Hook::PreScore, status)));
            }
        }
        let mut totals: Vec<i64> = vec![0; feasible.len()];
        for &i in profile.at(ExtensionPoint::Score) {
            let p = &plugins[i];
            if skip[i] {
                for d in self
                    .report
                    .nodes
                    .iter_mut()
                    .filter(|d| d.status.is_success())
                {
                    d.score[i] = Outcome::NotRun(PRESCORE_SKIP);
                }
                self.report.plugins[i].normalize =
                    profile.not_run(i, Hook::NormalizeScore, PRESCORE_SKIP);
                continue;
            }
            let mut scores: Vec<(String, i64)> = Vec::with_capacity(feasible.len());
            let mut calls = p.plugin.cycle_calls(self.cycle);
            for node in feasible {
                let (score, status) = self.call(i, calls.score(node))?;
                if !status.is_success() {
                    self.set_score(node, i, Outcome::Ran(Err(status.clone())));
                    let status = framework_status(Hook::Score, &p.name, status);
                    return Ok(Err((i, Hook::Score, status)));
                }
                scores.push((node.clone(), i64::from(score)));
            }
            drop(calls);
            let raw = scores.clone();
            if profile.runs(i, Hook::NormalizeScore) {
                let result = self.call(i, p.plugin.normalize_score(self.cycle, &scores))?;
                let status = result.status.clone();
                if status.is_success() {
                    result.apply(&mut scores);
                }
                self.report.plugins[i].normalize = Outcome::Ran(result);
                if !status.is_success() {
                    let status = framework_status(Hook::NormalizeScore, &p.name, status);
                    return Ok(Err((i, Hook::NormalizeScore, status)));
                }
            }
            let weight = p.weight;
            for (k, ((node, normalized), (_, raw))) in scores.iter().zip(&raw).enumerate() {
                let out_of_range = !(0..=MAX_NODE_SCORE).contains(normalized);
                let weighted = normalized.saturating_mul(weight);
                self.set_score(
                    node,
                    i,
                    Outcome::Ran(Ok(PluginScore {
                        raw: *raw,
                        normalized: *normalized,
                        weighted,
                    })),
                );
                if out_of_range {
                    let status = Status {
                        code: Code::ERROR,
                        reason: Some(format!(
                            "applying score defaultWeights on Score plugins: plugin {:?} returns an invalid score {normalized}, it should in the range of [0, {MAX_NODE_SCORE}] after normalizing",
                            p.name
                        )),
                    };
                    return Ok(Err((i, Hook::Score, status)));
                }
                totals[k] = totals[k].saturating_add(weighted);
            }
        }
        for (node, total) in feasible.iter().zip(&totals) {
            if let Some(d) = self.report.nodes.iter_mut().find(|d| d.node == *node) {
                d.total = Some(*total);
            }
        }
        let best = totals.iter().copied().max().unwrap_or(0);
        self.report.tied = totals.iter().filter(|t| **t == best).count();
        let at = totals.iter().position(|t| *t == best).unwrap_or(0);
        Ok(Ok(feasible[at].clone()))
    }

    fn set_score(&mut self, node: &str, i: usize, outcome: Outcome<Result<PluginScore, Status>>) {
        if let Some(d) = self.report.nodes.iter_mut().find(|d| d.node == node) {
            d.score[i] = outcome;
        }
    }

    /// Reserve through PostBind on `node`, each point's plugins in its order.
    fn bind(mut self, node: &str) -> Result<ProfileReport, ProfileCallError> {
        let profile = self.profile;
        let plugins = &profile.plugins;
        let n = plugins.len();
        // Reserve.
        for &i in profile.at(ExtensionPoint::Reserve) {
            if !profile.runs(i, Hook::Reserve) {
                continue;
            }
            let status = self.call(i, plugins[i].plugin.reserve(self.cycle, node))?;
            self.report.plugins[i].reserve = Outcome::Ran(status.clone());
            if !status.is_success() {
                return self.unreserve(node, i, Hook::Reserve, status);
            }
        }
        // Permit.
        let mut waiting = None;
        for &i in profile.at(ExtensionPoint::Permit) {
            if !profile.runs(i, Hook::Permit) {
                continue;
            }
            let result = self.call(i, plugins[i].plugin.permit(self.cycle, node))?;
            let status = result.status.clone();
            self.report.plugins[i].permit = Outcome::Ran(result);
            if status.code == Code::WAIT {
                waiting.get_or_insert(i);
            } else if !status.is_success() {
                return self.unreserve(node, i, Hook::Permit, status);
            }
        }
        if let Some(i) = waiting {
            self.report.outcome = CycleOutcome::Waiting {
                node: node.to_string(),
                plugin: plugins[i].name.clone(),
            };
            return Ok(self.report);
        }
        // PreBind.
        for &i in profile.at(ExtensionPoint::PreBind) {
            if !profile.runs(i, Hook::PreBind) {
                continue;
            }
            let status = self.call(i, plugins[i].plugin.prebind(self.cycle, node))?;
            self.report.plugins[i].prebind = Outcome::Ran(status.clone());
            if !status.is_success() {
                return self.unreserve(node, i, Hook::PreBind, status);
            }
        }
        // Bind.
        let mut by = None;
        for &i in profile.at(ExtensionPoint::Bind) {
            if !profile.runs(i, Hook::Bind) {
                continue;
            }
            if by.is_some() {
                self.report.plugins[i].bind = Outcome::NotRun(BOUND_EARLIER);
                continue;
            }
            let status = self.call(i, plugins[i].plugin.bind(self.cycle, node))?;
            self.report.plugins[i].bind = Outcome::Ran(status.clone());
            if status.code == Code::SKIP {
                continue;
            }
            if !status.is_success() {
                return self.unreserve(node, i, Hook::Bind, status);
            }
            by = Some(plugins[i].name.clone());
        }
        // PostBind.
        for &i in profile.at(ExtensionPoint::PostBind) {
            if profile.runs(i, Hook::PostBind) {
                self.call(i, plugins[i].plugin.postbind(self.cycle, node))?;
                self.report.plugins[i].postbind = Outcome::Ran(());
            }
        }
        for i in 0..n {
            self.report.plugins[i].unreserve =
                profile.not_run(i, Hook::Unreserve, "the pod was bound");
        }
        self.report.outcome = CycleOutcome::Bound {
            node: node.to_string(),
            by,
        };
        Ok(self.report)
    }

    /// A rejection in the binding phase: every Reserve plugin's Unreserve,
    /// in reverse order, then the cycle fails at `hook`.
    fn unreserve(
        mut self,
        node: &str,
        at: usize,
        hook: Hook,
        status: Status,
    ) -> Result<ProfileReport, ProfileCallError> {
        let profile = self.profile;
        let plugins = &profile.plugins;
        // kube-scheduler calls Unreserve on every Reserve plugin; a guest
        // without `unreserve` is NotExported here, where KSW would call a
        // missing function.
        for &i in profile.at(ExtensionPoint::Reserve).iter().rev() {
            if plugins[i].plugin.hooks().contains(Hook::Unreserve) {
                self.call(i, plugins[i].plugin.unreserve(self.cycle, node))?;
                self.report.plugins[i].unreserve = Outcome::Ran(());
            } else {
                self.report.plugins[i].unreserve = Outcome::NotExported;
            }
        }
        let status = framework_status(hook, &plugins[at].name, status);
        self.fail(at, hook, status)
    }
}

fn empty_report() -> ProfileReport {
    ProfileReport {
        plugins: Vec::new(),
        nodes: Vec::new(),
        chosen: None,
        tied: 0,
        outcome: CycleOutcome::Unschedulable,
    }
}
