//! Accounts: sign-in links and sessions, the seats an account holds, its games, API tokens and chat webhooks.

pub(in crate::store) mod account;
pub(in crate::store) mod api_tokens;
pub(in crate::store) mod close;
pub(in crate::store) mod export;
pub(in crate::store) mod my_games;
pub(in crate::store) mod organised;
pub(in crate::store) mod seats;
pub(in crate::store) mod sign_in;
pub(in crate::store) mod webhooks;
