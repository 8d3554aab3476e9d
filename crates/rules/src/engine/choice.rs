//! The game-agnostic description of the decisions open to a seat.
//!
//! A [`Choice`] is a command template plus the [`Param`]s a player fills in. A web page renders
//! each parameter as a widget (radio buttons, card pickers, a number box, a cube placer) and a
//! bot fills it at random, neither knowing the game. Every parameter carries its rule in a form
//! both can check, so a fill that passes [`Choice::build`] is a command the game accepts.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Words of a choice: borrowed when fixed (a game's static labels and prompts), owned when
/// made for the moment, so offering a choice copies no fixed text.
pub type Text = Cow<'static, str>;

/// A JSON value of a choice: borrowed when fixed (a command with nothing to fill in, an option
/// naming one of a game's states), owned when made for the moment, so offering it allocates
/// nothing.
pub type Json = Cow<'static, Value>;

/// A constant command, made once where it is written and borrowed after: a [`Json`] that
/// offering a choice does not allocate.
macro_rules! fixed_json {
    ($($json:tt)+) => {{
        static COMMAND: std::sync::LazyLock<serde_json::Value> =
            std::sync::LazyLock::new(|| serde_json::json!($($json)+));
        $crate::engine::Json::Borrowed(&*COMMAND)
    }};
}
pub(crate) use fixed_json;

/// One decision a seat may take now.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Choice {
    /// What the button says: "Bid 300", "Pass", "Declare statehood for DC".
    pub label: Text,
    /// The command as JSON, complete except for the fields named by `params`.
    pub command: Json,
    /// Fields the player fills in before sending; empty when the command is complete.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    /// A sealed simultaneous choice: nobody sees it until every awaited seat has chosen.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sealed: bool,
    /// A caution shown beside the choice ("discarding Puerto Rico forfeits the hand").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// One field of a command to fill in.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Param {
    /// The key of the command object this value goes into.
    pub field: Text,
    /// The question put to the player: "Which card do you discard?".
    pub prompt: Text,
    /// The kind of value and its rule.
    #[serde(flatten)]
    pub kind: ParamKind,
}

/// The kinds of value a parameter takes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ParamKind {
    /// Exactly one of the options; the value is that option's value.
    One { options: Vec<PickOption> },
    /// Between `min` and `max` distinct options; the value is the array of their values in the
    /// order listed.
    Pick {
        options: Vec<PickOption>,
        min: usize,
        max: usize,
        #[serde(default)]
        rule: PickRule,
    },
    /// A whole number `min`, `min + step`, ... up to `max`.
    Number { min: i64, max: i64, step: i64 },
    /// Place exactly `total` units (cubes) among the options, at most `max_each` on one; the
    /// value is an array of counts aligned with `options`.
    Distribute {
        options: Vec<PickOption>,
        total: u32,
        max_each: u32,
    },
    /// Place exactly `total` units among the options, at most `caps[i]` on option `i` and at
    /// most a group's cap on all the options of that group together (such as the two colours
    /// of cube in one state); the value is an array of counts aligned with `options`.
    Allot {
        options: Vec<PickOption>,
        total: u32,
        caps: Vec<u32>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        groups: Vec<GroupCap>,
    },
}

/// For each option of a [`ParamKind::Allot`], the index in `groups` of the first cap of its
/// group, if any.
pub fn group_indices(options: &[PickOption], groups: &[GroupCap]) -> Vec<Option<usize>> {
    // Options usually list their groups in the groups' order, so the group of the option
    // before is tried first, then the one after it. The one before is always a first cap (it
    // was an answer, or it is cap 0); the one after is, when no name repeats.
    let mut distinct = None;
    let mut last = 0;
    // A game usually borrows an option's group and its cap's from one table: the same
    // pointer is the same name, without comparing the bytes.
    let named = |g: usize, name: &str| {
        groups
            .get(g)
            .is_some_and(|cap| std::ptr::eq(&*cap.group, name) || cap.group == name)
    };
    options
        .iter()
        .map(|o| {
            let name = o.group.as_deref()?;
            let g = if named(last, name) {
                last
            } else if named(last + 1, name)
                && *distinct.get_or_insert_with(|| names_distinct(groups))
            {
                last + 1
            } else {
                groups.iter().position(|cap| cap.group == name)?
            };
            last = g;
            Some(g)
        })
        .collect()
}

/// Whether no two caps name one group.
fn names_distinct(groups: &[GroupCap]) -> bool {
    let mut names: Vec<&str> = groups.iter().map(|cap| cap.group.as_ref()).collect();
    names.sort_unstable();
    names.windows(2).all(|w| w[0] != w[1])
}

/// The most units a [`ParamKind::Allot`] may put on all the options of one group together.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct GroupCap {
    /// The options' [`PickOption::group`].
    pub group: Text,
    /// The most units on them together.
    pub cap: u32,
}

impl ParamKind {
    /// The rule of an [`ParamKind::Allot`] in words ("at most 2 on CA"), for a page; `None`
    /// for other kinds or when no group cap binds.
    pub fn allot_rule(&self) -> Option<String> {
        let ParamKind::Allot {
            options,
            caps,
            groups,
            ..
        } = self
        else {
            return None;
        };
        let binding: Vec<String> = groups
            .iter()
            .filter(|g| {
                let open: u32 = options
                    .iter()
                    .zip(caps)
                    .filter(|(o, _)| o.group.as_deref() == Some(g.group.as_ref()))
                    .map(|(_, c)| *c)
                    .sum();
                g.cap < open
            })
            .map(|g| format!("at most {} on {}", g.cap, g.group))
            .collect();
        (!binding.is_empty()).then(|| binding.join(", "))
    }
}

/// One option of a [`ParamKind::One`], [`ParamKind::Pick`] or [`ParamKind::Distribute`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PickOption {
    /// What goes into the command (usually a card id such as `"CA"`).
    pub value: Json,
    /// What the player reads ("California (54)").
    pub label: Text,
    /// A number the rule may add up, such as a card's electoral votes.
    #[serde(default)]
    pub weight: i64,
    /// A tag the rule may compare, such as a card's rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<Text>,
    /// A short code a person can copy into a reply ("NY-P"), when the value is no such code
    /// or is shared with other options of the parameter (cubes of two colours in one state).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Text>,
    /// The heading a mail lists the option under, with the others of that heading ("West"
    /// above the states of a region), when a long list reads better in groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heading: Option<Text>,
}

impl PickOption {
    /// An option with no weight or group.
    pub fn new(value: impl Into<Value>, label: impl Into<Text>) -> PickOption {
        PickOption::fixed(Cow::Owned(value.into()), label)
    }

    /// An option whose value may be borrowed from a game's static table.
    pub fn fixed(value: Json, label: impl Into<Text>) -> PickOption {
        PickOption {
            value,
            label: label.into(),
            weight: 0,
            group: None,
            code: None,
            heading: None,
        }
    }

    /// The same option, with a weight for [`PickRule::SumAbove`].
    pub fn weighted(mut self, weight: i64) -> PickOption {
        self.weight = weight;
        self
    }

    /// The same option, with a code to reply with.
    pub fn coded(mut self, code: impl Into<Text>) -> PickOption {
        self.code = Some(code.into());
        self
    }

    /// The same option, listed under `heading` in a mail.
    pub fn under(mut self, heading: impl Into<Text>) -> PickOption {
        self.heading = Some(heading.into());
        self
    }

    /// The same option, with a group for [`PickRule::SameGroup`].
    pub fn grouped(mut self, group: impl Into<Text>) -> PickOption {
        self.group = Some(group.into());
        self
    }
}

/// A constraint on the set of options picked together.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum PickRule {
    /// Any set of the allowed size.
    #[default]
    Any,
    /// The weights of the picked options must add up to more than `threshold`.
    SumAbove { threshold: i64 },
    /// All picked options must share one group.
    SameGroup,
}

impl PickRule {
    /// Explains the rule in words, for a page.
    pub fn explain(&self) -> Option<String> {
        match self {
            PickRule::Any => None,
            PickRule::SumAbove { threshold } => {
                Some(format!("their total must exceed {threshold}"))
            }
            PickRule::SameGroup => Some("they must all be of one kind".to_string()),
        }
    }

    fn holds(&self, picked: &[&PickOption]) -> bool {
        match self {
            PickRule::Any => true,
            PickRule::SumAbove { threshold } => {
                picked.iter().map(|o| o.weight).sum::<i64>() > *threshold
            }
            PickRule::SameGroup => picked
                .windows(2)
                .all(|w| w[0].group.is_some() && w[0].group == w[1].group),
        }
    }
}

/// Why a filled-in choice is not a command.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FillError {
    /// A parameter was left empty.
    #[error("{0}: no value given")]
    Missing(String),
    /// A value is not among the options, out of range, or breaks the rule.
    #[error("{field}: {reason}")]
    Invalid { field: String, reason: String },
}

impl Param {
    /// Checks one value against this parameter.
    pub fn check(&self, value: &Value) -> Result<(), FillError> {
        let invalid = |reason: String| FillError::Invalid {
            field: self.field.to_string(),
            reason,
        };
        match &self.kind {
            ParamKind::One { options } => {
                if options.iter().any(|o| *o.value == *value) {
                    Ok(())
                } else {
                    Err(invalid(format!("{value} is not one of the options")))
                }
            }
            ParamKind::Pick {
                options,
                min,
                max,
                rule,
            } => {
                let values = value
                    .as_array()
                    .ok_or_else(|| invalid("expected a list".into()))?;
                if values.len() < *min || values.len() > *max {
                    let wanted = if min == max {
                        min.to_string()
                    } else {
                        format!("{min} to {max}")
                    };
                    return Err(invalid(format!(
                        "choose {wanted}; you chose {}",
                        values.len()
                    )));
                }
                let mut picked = Vec::with_capacity(values.len());
                for (i, v) in values.iter().enumerate() {
                    if values[..i].contains(v) {
                        return Err(invalid(format!("{v} is picked twice")));
                    }
                    let option = options
                        .iter()
                        .find(|o| *o.value == *v)
                        .ok_or_else(|| invalid(format!("{v} is not one of the options")))?;
                    picked.push(option);
                }
                if rule.holds(&picked) {
                    Ok(())
                } else {
                    Err(invalid(rule.explain().unwrap_or_default()))
                }
            }
            ParamKind::Number { min, max, step } => {
                let n = value
                    .as_i64()
                    .ok_or_else(|| invalid("expected a whole number".into()))?;
                if n < *min || n > *max || (n - min) % step.max(&1) != 0 {
                    Err(invalid(if *step > 1 {
                        format!(
                            "give a number from {min} to {max} in steps of {step}; you gave {n}"
                        )
                    } else {
                        format!("give a number from {min} to {max}; you gave {n}")
                    }))
                } else {
                    Ok(())
                }
            }
            ParamKind::Distribute {
                options,
                total,
                max_each,
            } => {
                let counts = value
                    .as_array()
                    .filter(|a| a.len() == options.len())
                    .ok_or_else(|| invalid(format!("expected {} counts", options.len())))?;
                let mut sum = 0u64;
                for c in counts {
                    let c = c
                        .as_u64()
                        .ok_or_else(|| invalid("counts are whole numbers".into()))?;
                    if c > u64::from(*max_each) {
                        return Err(invalid(format!("at most {max_each} on one")));
                    }
                    sum += c;
                }
                if sum == u64::from(*total) {
                    Ok(())
                } else {
                    Err(invalid(format!("place {total} in all; you placed {sum}")))
                }
            }
            ParamKind::Allot {
                options,
                total,
                caps,
                groups,
            } => {
                let counts = value
                    .as_array()
                    .filter(|a| a.len() == options.len())
                    .ok_or_else(|| invalid(format!("expected {} counts", options.len())))?;
                let mut sum = 0u64;
                let mut per_group = vec![0u64; groups.len()];
                let group_of = group_indices(options, groups);
                for (i, c) in counts.iter().enumerate() {
                    let c = c
                        .as_u64()
                        .ok_or_else(|| invalid("counts are whole numbers".into()))?;
                    let cap = caps.get(i).copied().unwrap_or(0);
                    if c > u64::from(cap) {
                        return Err(invalid(format!("at most {cap} on {}", options[i].label)));
                    }
                    if let Some(g) = group_of[i] {
                        per_group[g] += c;
                        if per_group[g] > u64::from(groups[g].cap) {
                            return Err(invalid(format!(
                                "at most {} on {}",
                                groups[g].cap, groups[g].group
                            )));
                        }
                    }
                    sum += c;
                }
                if sum == u64::from(*total) {
                    Ok(())
                } else {
                    Err(invalid(format!("place {total} in all; you placed {sum}")))
                }
            }
        }
    }
}

impl Param {
    /// The one value this parameter can take, when its rule leaves exactly one (one option,
    /// a range of one number, every unit's place fixed); `None` when it leaves a choice or
    /// none. Conservative: a value it gives always passes [`Param::check`].
    pub fn only_value(&self) -> Option<Value> {
        let value = match &self.kind {
            ParamKind::One { options } => {
                let first = options.first()?;
                options
                    .iter()
                    .all(|o| o.value == first.value)
                    .then(|| first.value.clone().into_owned())?
            }
            ParamKind::Pick {
                options, min, max, ..
            } => {
                if *max == 0 {
                    Value::Array(Vec::new())
                } else if options.len() == *min && min <= max {
                    Value::Array(
                        options
                            .iter()
                            .map(|o| o.value.clone().into_owned())
                            .collect(),
                    )
                } else {
                    return None;
                }
            }
            ParamKind::Number { min, max, step } => {
                (*max < min.saturating_add((*step).max(1))).then(|| Value::from(*min))?
            }
            ParamKind::Distribute {
                options,
                total,
                max_each,
            } => {
                let all = u64::from(*max_each) * options.len() as u64;
                if *total == 0 || u64::from(*total) == all {
                    let each = if *total == 0 { 0 } else { *max_each };
                    Value::Array(vec![Value::from(each); options.len()])
                } else if options.len() == 1 {
                    Value::Array(vec![Value::from(*total)])
                } else {
                    return None;
                }
            }
            ParamKind::Allot {
                options,
                total,
                caps,
                ..
            } => {
                let open: u64 = caps.iter().map(|c| u64::from(*c)).sum();
                if *total == 0 {
                    Value::Array(vec![Value::from(0); options.len()])
                } else if open == u64::from(*total) {
                    Value::Array(caps.iter().map(|c| Value::from(*c)).collect())
                } else if options.len() == 1 {
                    Value::Array(vec![Value::from(*total)])
                } else {
                    return None;
                }
            }
        };
        self.check(&value).is_ok().then_some(value)
    }
}

/// The one command `choices` allow, when they allow exactly one: a single choice whose every
/// parameter has one possible value ([`Param::only_value`]). A seat offered it has no decision
/// to make.
pub fn forced(choices: &[Choice]) -> Option<Value> {
    let [choice] = choices else {
        return None;
    };
    let values = choice
        .params
        .iter()
        .map(Param::only_value)
        .collect::<Option<Vec<_>>>()?;
    choice.build(&values).ok()
}

impl Choice {
    /// A complete command with nothing to fill in.
    pub fn action(label: impl Into<Text>, command: Value) -> Choice {
        Choice::fixed(label, Cow::Owned(command))
    }

    /// A complete command that may be borrowed from a game's static table.
    pub fn fixed(label: impl Into<Text>, command: Json) -> Choice {
        Choice {
            label: label.into(),
            command,
            params: Vec::new(),
            sealed: false,
            warning: None,
        }
    }

    /// The same choice with a parameter to fill in.
    pub fn with_param(
        mut self,
        field: impl Into<Text>,
        prompt: impl Into<Text>,
        kind: ParamKind,
    ) -> Choice {
        self.params.push(Param {
            field: field.into(),
            prompt: prompt.into(),
            kind,
        });
        self
    }

    /// The same choice, marked sealed.
    pub fn sealed(mut self) -> Choice {
        self.sealed = true;
        self
    }

    /// The same choice, with a warning.
    pub fn warn(mut self, warning: impl Into<String>) -> Choice {
        self.warning = Some(warning.into());
        self
    }

    /// Fills the parameters (in order) and returns the command, or why the values do not fit.
    pub fn build(&self, values: &[Value]) -> Result<Value, FillError> {
        for (i, param) in self.params.iter().enumerate() {
            let value = values
                .get(i)
                .ok_or_else(|| FillError::Missing(param.field.to_string()))?;
            param.check(value)?;
        }
        Ok(self.assemble(values.iter().cloned()))
    }

    /// The command with `values` in the parameters' fields, in order, unchecked: for a filler
    /// that obeys every parameter's rule by construction (the random bot, whose fills the
    /// game checks again when it applies them).
    pub fn assemble(&self, values: impl IntoIterator<Item = Value>) -> Value {
        let mut command = match &*self.command {
            Value::Object(map) => map.clone(),
            _ if self.params.is_empty() => return self.command.clone().into_owned(),
            _ => Map::new(),
        };
        for (param, value) in self.params.iter().zip(values) {
            command.insert(param.field.to_string(), value);
        }
        Value::Object(command)
    }
}
