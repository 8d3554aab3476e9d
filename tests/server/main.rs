//! The server's tests in one binary (one compile of the harness and of the generic code it
//! instantiates, instead of one per file): each module is one capability, against a real
//! PostgreSQL, real HTTP and real SMTP. The browser, failover and webhook tests are binaries of
//! their own (`tests/browser/`, `tests/failover.rs`, `tests/webhooks.rs`): the first two need
//! the machine to themselves, the last captures the whole process's log.

#[path = "../common/mod.rs"]
mod common;

mod accounts;
mod audit;
mod audit_db;
mod backup;
mod bot_seats;
mod cli;
mod clock;
mod club_archive;
mod clubs;
mod desk;
mod durability;
mod fairness;
mod forced;
mod hidden;
mod hints;
mod layout;
mod league_results;
mod leagues;
mod lobby;
mod mail_fold;
mod mail_inbound_limits;
mod mail_outbox;
mod mail_reply;
mod mail_smtp;
mod me;
mod me_close;
mod messages;
mod metrics;
mod move_races;
mod overload;
mod private_cluster;
mod ratings;
mod review;
mod round_trips;
mod seat_changes;
mod security;
mod signin;
mod store;
mod table;
mod trust;
mod undo;
mod unlisted;
mod web;
