//! The search tree of one decision: the moves every seat made in earlier playouts, each
//! credited with its own mover's rewards (single-observer information-set MCTS).

use super::{BotError, candidates, random_to_end, reward};
use crate::engine::{Determinize, GameRng, Log, Seat};
use serde_json::Value;

/// One move in the search tree: a move some seat made in some of the samples.
pub(super) struct Node {
    /// The seat that made it.
    mover: Seat,
    /// The move, as the game's JSON (a node is told apart from its siblings by it).
    command: Value,
    /// Playouts that passed through it.
    visits: u32,
    /// Times it was legal when its parent was passed (its UCB's count of chances).
    available: u32,
    /// The sum of its mover's rewards over those playouts.
    total: f64,
    /// Its children, as indices into the tree.
    children: Vec<usize>,
}

impl Node {
    fn new(mover: Seat, command: Value) -> Node {
        Node {
            mover,
            command,
            visits: 0,
            available: 0,
            total: 0.0,
            children: Vec::new(),
        }
    }

    /// UCB1 with availability: the mean reward plus the exploration bonus.
    fn bound(&self, exploration: f64) -> f64 {
        let n = f64::from(self.visits.max(1));
        let chances = f64::from(self.available.max(1));
        self.total / n + (2.0 * chances.ln() / n).sqrt() * exploration
    }
}

/// The search tree of one decision. Index 0 is the root (the position the bot decides in);
/// its children are the bot's candidate moves, in the candidates' order.
pub(super) struct Tree {
    nodes: Vec<Node>,
    exploration: f64,
}

impl Tree {
    pub(super) fn new<C>(seat: Seat, candidates: &[(Value, C)], exploration: f64) -> Tree {
        let mut nodes = vec![Node::new(seat, Value::Null)];
        for (json, _) in candidates {
            let child = nodes.len();
            nodes.push(Node::new(seat, json.clone()));
            nodes[0].children.push(child);
        }
        Tree { nodes, exploration }
    }

    /// The bot's move this playout tries: each once in order, then UCB1 (every candidate is
    /// legal in every sample).
    pub(super) fn root_arm(&self, done: u32) -> usize {
        let stats: Vec<(u32, f64)> = self.nodes[0]
            .children
            .iter()
            .map(|&c| (self.nodes[c].visits, self.nodes[c].total))
            .collect();
        ucb_arm(&stats, done, self.exploration)
    }

    /// The bot's move with the most playouts (then the better mean, then the earlier).
    pub(super) fn most_visited_root_child(&self) -> usize {
        let children = &self.nodes[0].children;
        (0..children.len())
            .max_by(|&a, &b| {
                let key = |i: usize| {
                    let node = &self.nodes[children[i]];
                    (node.visits, node.total / f64::from(node.visits.max(1)))
                };
                let (va, ma) = key(a);
                let (vb, mb) = key(b);
                va.cmp(&vb).then(ma.total_cmp(&mb)).then(b.cmp(&a))
            })
            .expect("two or more candidates")
    }

    /// The mean reward of the bot's move `i` over the playouts that tried it (0 without any).
    pub(super) fn root_mean(&self, i: usize) -> f64 {
        let node = &self.nodes[self.nodes[0].children[i]];
        node.total / f64::from(node.visits.max(1))
    }

    /// A bot's move drawn among those that won at least one playout, each as likely as its
    /// share of the playouts (the search gives more to the better ones); the most visited when
    /// none won.
    pub(super) fn sensible_root_child(&self, rng: &mut GameRng) -> usize {
        let weights: Vec<u32> = self.nodes[0]
            .children
            .iter()
            .map(|&c| {
                let node = &self.nodes[c];
                if node.total > 0.0 { node.visits } else { 0 }
            })
            .collect();
        let sum: u32 = weights.iter().sum();
        if sum == 0 {
            return self.most_visited_root_child();
        }
        let mut ticket = rng.index(sum as usize) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if ticket < w {
                return i;
            }
            ticket -= w;
        }
        unreachable!("the ticket falls within the weights' sum")
    }

    /// One playout on `state`: the bot's move `arm`, down the tree, one new node, random play
    /// to the end, and every node passed credited with its mover's reward. `false` when the
    /// playout could not finish (scored as a draw for everyone).
    pub(super) fn iterate<R: Determinize>(
        &mut self,
        mut state: R::State,
        arm: usize,
        first: &R::Command,
        seats: usize,
        rng: &mut GameRng,
    ) -> Result<bool, BotError> {
        let root_child = self.nodes[0].children[arm];
        let mut path = vec![root_child];
        let mut log = Log::silent();
        let moved = R::apply(&mut state, self.nodes[0].mover, first, rng, &mut log).is_ok();
        let outcome = if moved && self.descend::<R>(&mut state, &mut path, rng)? {
            random_to_end::<R>(&mut state, rng)
        } else {
            None
        };
        let rewards: Vec<f64> = (0..seats)
            .map(|s| match &outcome {
                Some(o) => reward(o, s, &R::partners(&state, s)),
                None => 0.5,
            })
            .collect();
        for &n in &path {
            let node = &mut self.nodes[n];
            node.visits += 1;
            node.total += rewards.get(node.mover).copied().unwrap_or(0.5);
        }
        Ok(outcome.is_some())
    }

    /// Walks down from the last node of `path` while its nodes have been played before,
    /// adding one new move at the first that may widen; `false` if the game got stuck or
    /// refused a move it offered (a rules bug).
    fn descend<R: Determinize>(
        &mut self,
        state: &mut R::State,
        path: &mut Vec<usize>,
        rng: &mut GameRng,
    ) -> Result<bool, BotError> {
        let mut log = Log::silent();
        let mut at = *path.last().expect("the path starts at the bot's move");
        while self.nodes[at].visits > 0 && R::outcome(state).is_none() {
            let active = R::active(state);
            if active.is_empty() {
                return Ok(false);
            }
            let mover = active[rng.index(active.len())];
            let choices = R::choices(state, mover);
            if choices.is_empty() {
                return Ok(false);
            }
            let mut known = Vec::new();
            let mut new = Vec::new();
            for (json, command) in candidates::<R>(&choices, rng)? {
                let child = self.nodes[at]
                    .children
                    .iter()
                    .copied()
                    .find(|&c| self.nodes[c].mover == mover && self.nodes[c].command == json);
                match child {
                    Some(c) => known.push((c, command)),
                    None => new.push((json, command)),
                }
            }
            for (c, _) in &known {
                self.nodes[*c].available += 1;
            }
            let may_widen = self.nodes[at].children.len() < widening(self.nodes[at].visits);
            let (next, command) = if !new.is_empty() && (known.is_empty() || may_widen) {
                let (json, command) = new.swap_remove(rng.index(new.len()));
                let child = self.nodes.len();
                let mut node = Node::new(mover, json);
                node.available = 1;
                self.nodes.push(node);
                self.nodes[at].children.push(child);
                (child, command)
            } else {
                let mut best = 0;
                for k in 1..known.len() {
                    if self.nodes[known[k].0].bound(self.exploration)
                        > self.nodes[known[best].0].bound(self.exploration)
                    {
                        best = k;
                    }
                }
                known.swap_remove(best)
            };
            if R::apply(state, mover, &command, rng, &mut log).is_err() {
                return Ok(false);
            }
            path.push(next);
            at = next;
        }
        Ok(true)
    }
}

/// How many children a node played `visits` times may have (progressive widening): a node
/// with many possible moves (picks of several cards) grows as it proves worth looking at,
/// instead of spending every playout on a new move.
fn widening(visits: u32) -> usize {
    1 + (2.0 * f64::from(visits).sqrt()) as usize
}

/// UCB1 over the arms: every arm once in order, then the best upper bound (the lowest index
/// among equals).
fn ucb_arm(stats: &[(u32, f64)], done: u32, exploration: f64) -> usize {
    if let Some(untried) = stats.iter().position(|s| s.0 == 0) {
        return untried;
    }
    let log_n = f64::from(done.max(1)).ln();
    let mut best = 0;
    let mut best_bound = f64::NEG_INFINITY;
    for (i, &(n, total)) in stats.iter().enumerate() {
        let n = f64::from(n);
        let bound = total / n + (2.0 * log_n / n).sqrt() * exploration;
        if bound > best_bound {
            best = i;
            best_bound = bound;
        }
    }
    best
}

/// UCB1's exploration constant (scaled for rewards in 0..=1) for a search of `budget`
/// playouts. Every seat's node in the tree picks its move by UCB, so the bonus also keeps the
/// other seats trying replies that lose: with the constant at 0.7 a hard search valued its
/// own moves as if the others might answer badly (it overbid at Whitehouse and scored 52 %
/// against medium at Electoral College Combat). A search of a thousand playouts or more
/// visits every reply often enough with a smaller bonus; small searches keep the wider one
/// (docs/BOTS.md, "Exploration").
pub(super) fn exploration_for(budget: u32) -> f64 {
    if budget >= 1_000 { 0.2 } else { 0.7 }
}
