//! Scenario tests of Votes for Women.
