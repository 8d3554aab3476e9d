//! Notices' part in the store's transactions ([`Effects`]): each event of the store handed to
//! the builder that words it.

use crate::engine::Seat;
use crate::notices::notice::{GameRef, LinkNotice, Notice};
use crate::notices::outbox::{NewRow, announce, insert};
use crate::notices::turn::enqueue_after_move;
use crate::store::game::effects::{
    Appended, ClubNews, Creation, EffectError, Effects, LeagueNews, TableNews,
};
use futures_util::future::BoxFuture;
use sqlx::PgConnection;

/// Notices' part in the store's transactions: invitations when a game is created, a notice for
/// each seat that becomes awaited, and game-over mail.
pub struct NoticeEffects;

impl Effects for NoticeEffects {
    fn created<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        creation: &'a Creation<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            crate::notices::invite::enqueue_invites(tx, creation).await?;
            if let Some(to) = creation.organiser_email {
                let notice = Notice::Link(LinkNotice {
                    game: GameRef {
                        home: None,
                        id: creation.id,
                        name: creation.game.name().to_string(),
                    },
                    headline: "your organiser link".into(),
                    lines: vec![
                        "You created this game. Your organiser page shows every seat, its last move and the mail sent to it, and the clock; from it you can send an invitation again, change a player's address, give a seat a new link, give more time, pause the game, or cancel it.".into(),
                        "Keep this link to yourself: it runs the game.".into(),
                    ],
                    manage: true,
                    token: creation.organiser_token.to_string(),
                });
                insert(
                    tx,
                    NewRow {
                        game_id: creation.id,
                        seat: None,
                        event: "organiser".into(),
                        to,
                        to_name: "organiser",
                        notice,
                        digest: false,
                    },
                )
                .await?;
                announce(tx).await?;
            }
            Ok(())
        })
    }

    fn table_news<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a TableNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            crate::notices::table::enqueue_table_news(tx, news).await?;
            Ok(())
        })
    }

    fn league_news<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a LeagueNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            crate::notices::league::enqueue_league_news(tx, news).await?;
            Ok(())
        })
    }

    fn club_news<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a ClubNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            crate::notices::club::enqueue_club_news(tx, news).await?;
            Ok(())
        })
    }

    fn seat_changed<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        news: &'a crate::store::SeatChangeNews<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            crate::notices::seat_change::enqueue_seat_change(tx, news).await?;
            Ok(())
        })
    }

    fn move_reads(&self) -> Option<&'static str> {
        Some(crate::notices::plan::READS)
    }

    fn plan_move(
        &self,
        read: &serde_json::Value,
        entries: &[Appended<'_>],
        plan: &mut crate::store::game::plan::MovePlan,
    ) -> Result<bool, EffectError> {
        crate::notices::plan::plan(read, entries, plan)
    }

    fn appended<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        entry: &'a Appended<'a>,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            enqueue_after_move(tx, entry).await?;
            Ok(())
        })
    }

    fn message_posted<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        message: &'a crate::store::Message,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            crate::notices::thread::enqueue_each_message(tx, message).await?;
            Ok(())
        })
    }

    fn seat_rekeyed<'a>(
        &'a self,
        tx: &'a mut PgConnection,
        game_id: i64,
        seat: Seat,
    ) -> BoxFuture<'a, Result<(), EffectError>> {
        Box::pin(async move {
            crate::notices::reply::address::end_for_seat(tx, game_id, seat).await?;
            Ok(())
        })
    }
}
