//! Fair deals in the database (docs/FAIRNESS.md): batches of seeds published by their Merkle
//! root before use, each game taking the next seed in order, and what `/fairness` shows.

use crate::engine::Seed;
use crate::engine::deal::{
    self, BATCH_SIZE, Contribution, Deal, MIX_VERSION, PublishedBatch, UsedSeed,
};
use crate::store::{Store, StoreError};
use chrono::{DateTime, SecondsFormat, Utc};
use sqlx::{PgConnection, Row};

/// Where a new game's seed comes from.
#[derive(Debug, Clone)]
pub enum DealFrom {
    /// A seed the caller chose (tests, `selfplay`): no deal is recorded.
    Chosen(Seed),
    /// The next committed seed, mixed with these contributions: every real game's.
    Drawn(Vec<Contribution>),
}

impl From<Seed> for DealFrom {
    fn from(seed: Seed) -> DealFrom {
        DealFrom::Chosen(seed)
    }
}

/// How few seeds a batch may have left before the next batch is published.
const SPARE: i32 = 64;

/// A seed taken for a game: its batch and place, and the deal's seed.
pub(in crate::store) struct Drawn {
    /// The batch's id.
    pub batch: i64,
    /// The seed's place in it.
    pub index: i32,
    /// The mixed seed the game is dealt from.
    pub seed: Seed,
}

fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

impl Store {
    /// Publishes a new batch of seeds from the OS random source in its own transaction, so it
    /// is public before any game can take a seed from it.
    pub async fn publish_batch(&self) -> Result<String, StoreError> {
        let seeds: Vec<Seed> = (0..BATCH_SIZE).map(|_| Seed::random()).collect();
        let root = deal::root(&seeds);
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO seed_batches (root, size, published_at) VALUES ($1, $2, $3) RETURNING id",
        )
        .bind(&root)
        .bind(BATCH_SIZE as i32)
        .bind(self.now())
        .fetch_one(&mut *tx)
        .await?;
        let indexes: Vec<i32> = (0..BATCH_SIZE as i32).collect();
        let bytes: Vec<Vec<u8>> = seeds.iter().map(|s| s.0.to_vec()).collect();
        sqlx::query(
            "INSERT INTO batch_seeds (batch_id, idx, seed) \
             SELECT $1, i, s FROM UNNEST($2::int[], $3::bytea[]) AS t(i, s)",
        )
        .bind(id)
        .bind(&indexes)
        .bind(&bytes)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        tracing::info!(batch = id, root = %root, "seed batch published");
        Ok(root)
    }

    /// Takes the next seed in order from the oldest published batch with seeds left, inside
    /// the game's transaction, and mixes it with `contributions`. Publishes a new batch first
    /// (committed on its own) when none has seeds left, and one ahead when few are left.
    pub(in crate::store) async fn draw_seed(
        &self,
        tx: &mut PgConnection,
        contributions: &[Contribution],
    ) -> Result<Drawn, StoreError> {
        loop {
            let taken = sqlx::query(
                "UPDATE seed_batches SET next_index = next_index + 1 \
                 WHERE id = (SELECT id FROM seed_batches WHERE next_index < size \
                             ORDER BY id LIMIT 1 FOR UPDATE) AND next_index < size \
                 RETURNING id, next_index - 1 AS idx, size - next_index AS left_over",
            )
            .fetch_optional(&mut *tx)
            .await?;
            let Some(row) = taken else {
                self.publish_batch().await?;
                continue;
            };
            let (batch, index): (i64, i32) = (row.try_get("id")?, row.try_get("idx")?);
            if row.try_get::<i32, _>("left_over")? == SPARE {
                self.publish_batch().await?;
            }
            let bytes: Vec<u8> =
                sqlx::query_scalar("SELECT seed FROM batch_seeds WHERE batch_id = $1 AND idx = $2")
                    .bind(batch)
                    .bind(index)
                    .fetch_one(&mut *tx)
                    .await?;
            let committed = seed_of(&bytes)?;
            return Ok(Drawn {
                batch,
                index,
                seed: deal::mix(&committed, contributions),
            });
        }
    }

    /// How game `id`'s seed was derived, for its record: drawn here, or as its imported
    /// record carried it; `None` for a game with a chosen seed. Reveals the committed seed:
    /// only for a record that reveals the game's seed.
    pub(in crate::store) async fn deal_of(&self, id: i64) -> Result<Option<Deal>, StoreError> {
        let imported: Option<serde_json::Value> =
            sqlx::query_scalar("SELECT imported_deal FROM games WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?
                .flatten();
        if let Some(deal) = imported {
            return serde_json::from_value(deal)
                .map(Some)
                .map_err(|e| StoreError::Invalid(format!("an imported deal: {e}")));
        }
        let row = sqlx::query(
            "SELECT g.deal_index, g.deal_contributions, b.id, b.root, b.size, b.published_at \
             FROM games g JOIN seed_batches b ON b.id = g.deal_batch WHERE g.id = $1",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else { return Ok(None) };
        let seeds: Vec<Vec<u8>> =
            sqlx::query_scalar("SELECT seed FROM batch_seeds WHERE batch_id = $1 ORDER BY idx")
                .bind(row.try_get::<i64, _>("id")?)
                .fetch_all(&self.pool)
                .await?;
        let seeds = seeds
            .iter()
            .map(|s| seed_of(s))
            .collect::<Result<Vec<_>, _>>()?;
        let index = row.try_get::<i32, _>("deal_index")? as usize;
        let contributions: serde_json::Value = row.try_get("deal_contributions")?;
        Ok(Some(Deal {
            mix: MIX_VERSION,
            batch_root: row.try_get("root")?,
            batch_size: row.try_get::<i32, _>("size")? as usize,
            published_at: rfc3339(row.try_get("published_at")?),
            index,
            committed_seed: seeds[index],
            path: deal::path(&seeds, index),
            contributions: serde_json::from_value(contributions)
                .map_err(|e| StoreError::Invalid(format!("a game's contributions: {e}")))?,
        }))
    }

    /// Every published batch, newest first, with the places games took and any gap: what
    /// `/fairness` shows. Never a seed.
    pub async fn published_batches(&self) -> Result<Vec<PublishedBatch>, StoreError> {
        let batches = sqlx::query(
            "SELECT id, root, size, next_index, published_at FROM seed_batches ORDER BY id DESC",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for b in batches {
            let id: i64 = b.try_get("id")?;
            let taken: i32 = b.try_get("next_index")?;
            let used = sqlx::query(
                "SELECT deal_index, id FROM games WHERE deal_batch = $1 ORDER BY deal_index",
            )
            .bind(id)
            .fetch_all(&self.pool)
            .await?
            .iter()
            .map(|r| {
                Ok(UsedSeed {
                    index: r.try_get("deal_index")?,
                    game: r.try_get("id")?,
                })
            })
            .collect::<Result<Vec<_>, sqlx::Error>>()?;
            let gaps = (0..taken)
                .filter(|i| used.binary_search_by_key(i, |u| u.index).is_err())
                .collect();
            out.push(PublishedBatch {
                root: b.try_get("root")?,
                size: b.try_get("size")?,
                published_at: rfc3339(b.try_get("published_at")?),
                taken,
                used,
                gaps,
            });
        }
        Ok(out)
    }
}

fn seed_of(bytes: &[u8]) -> Result<Seed, StoreError> {
    let bytes: [u8; 32] = bytes
        .try_into()
        .map_err(|_| StoreError::Invalid("a stored seed is not 32 bytes".into()))?;
    Ok(Seed(bytes))
}
