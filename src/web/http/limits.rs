//! Rate limits on what costs others something: games created, invitations mailed, links remade.
//! Counted per client address and per organiser with `governor` (GCRA: a burst of the hourly
//! quota, then one more each 1/quota hour); a request over a limit gets 429 with Retry-After and
//! changes nothing.

use crate::config::WebSettings;
use crate::web::http::client::client_addr;
use crate::web::{AppState, WebError};
use actix_web::body::EitherBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::Method;
use actix_web::web;
use futures_util::future::{LocalBoxFuture, Ready, ready};
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::hash::Hash;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::rc::Rc;
use std::time::Duration;

/// One limit, by key; `None` when configured off.
struct Limit<K: Hash + Eq + Clone> {
    limiter: Option<DefaultKeyedRateLimiter<K>>,
}

impl<K: Hash + Eq + Clone> Limit<K> {
    fn per_hour(quota: u32) -> Limit<K> {
        Limit {
            limiter: NonZeroU32::new(quota).map(|q| RateLimiter::keyed(Quota::per_hour(q))),
        }
    }

    /// Takes `cells` from `key`'s allowance, or says how long until it could.
    fn take(&self, key: &K, cells: u32) -> Result<(), Duration> {
        let (Some(limiter), Some(cells)) = (&self.limiter, NonZeroU32::new(cells)) else {
            return Ok(());
        };
        match limiter.check_key_n(key, cells) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(not_until)) => Err(not_until.wait_time_from(DefaultClock::default().now())),
            // More than the whole hourly allowance at once: never.
            Err(_) => Err(Duration::from_secs(3600)),
        }
    }

    fn prune(&self) {
        if let Some(limiter) = &self.limiter {
            limiter.retain_recent();
            limiter.shrink_to_fit();
        }
    }
}

/// A refusal: what was limited and when to try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    /// What the client did too often, in words ("create games").
    pub what: &'static str,
    /// When one more will be allowed.
    pub retry_after: Duration,
}

/// Every rate limit of the server.
pub struct Limits {
    games_by_client: Limit<IpAddr>,
    games_by_organiser: Limit<String>,
    mails_by_client: Limit<IpAddr>,
    mails_by_organiser: Limit<String>,
    mails_by_game: Limit<i64>,
    relinks_by_client: Limit<IpAddr>,
    relinks_by_game: Limit<i64>,
    signins_by_client: Limit<IpAddr>,
}

fn refuse(what: &'static str) -> impl Fn(Duration) -> Limited {
    move |retry_after| Limited { what, retry_after }
}

impl Limits {
    /// The limits the settings ask for.
    pub fn new(settings: &WebSettings) -> Limits {
        Limits {
            games_by_client: Limit::per_hour(settings.games_per_hour),
            games_by_organiser: Limit::per_hour(settings.games_per_hour),
            mails_by_client: Limit::per_hour(settings.mails_per_hour),
            mails_by_organiser: Limit::per_hour(settings.mails_per_hour),
            mails_by_game: Limit::per_hour(settings.mails_per_hour),
            relinks_by_client: Limit::per_hour(settings.relinks_per_hour),
            relinks_by_game: Limit::per_hour(settings.relinks_per_hour),
            signins_by_client: Limit::per_hour(settings.signins_per_hour),
        }
    }

    /// One game created by `client`.
    pub fn game_by_client(&self, client: IpAddr) -> Result<(), Limited> {
        self.games_by_client
            .take(&client, 1)
            .map_err(refuse("create games"))
    }

    /// One game created for an organiser address, and `invitations` mails caused by `client` and
    /// by that organiser.
    pub fn game_mail(
        &self,
        client: IpAddr,
        organiser: Option<&str>,
        invitations: u32,
    ) -> Result<(), Limited> {
        let organiser = organiser.map(str::to_lowercase);
        if let Some(o) = &organiser {
            self.games_by_organiser
                .take(o, 1)
                .map_err(refuse("create games for this organiser"))?;
        }
        self.mails_by_client
            .take(&client, invitations)
            .map_err(refuse("send invitations"))?;
        if let Some(o) = &organiser {
            self.mails_by_organiser
                .take(o, invitations)
                .map_err(refuse("send invitations for this organiser"))?;
        }
        Ok(())
    }

    /// One invitation mailed again from the organiser's desk of `game` (sent once more, or to
    /// a seat's new address), asked by `client`.
    pub fn invitation_again(&self, client: IpAddr, game: i64) -> Result<(), Limited> {
        self.mails_by_client
            .take(&client, 1)
            .map_err(refuse("send invitations"))?;
        self.mails_by_game
            .take(&game, 1)
            .map_err(refuse("send invitations in this game"))
    }

    /// One new seat link made by `client`.
    pub fn relink_by_client(&self, client: IpAddr) -> Result<(), Limited> {
        self.relinks_by_client
            .take(&client, 1)
            .map_err(refuse("make new links"))
    }

    /// One new seat link in `game`.
    pub fn relink_in_game(&self, game: i64) -> Result<(), Limited> {
        self.relinks_by_game
            .take(&game, 1)
            .map_err(refuse("make new links in this game"))
    }

    /// One sign-in link asked by `client`.
    pub fn sign_in_by_client(&self, client: IpAddr) -> Result<(), Limited> {
        self.signins_by_client
            .take(&client, 1)
            .map_err(refuse("ask for sign-in links"))
    }

    /// Forgets keys whose allowance is whole again, so memory follows recent clients only.
    pub fn prune(&self) {
        self.games_by_client.prune();
        self.games_by_organiser.prune();
        self.mails_by_client.prune();
        self.mails_by_organiser.prune();
        self.mails_by_game.prune();
        self.relinks_by_client.prune();
        self.relinks_by_game.prune();
        self.signins_by_client.prune();
    }
}

/// Which per-client limit a route's POSTs count against.
#[derive(Clone, Copy, Debug)]
pub enum PerClient {
    /// `POST /new/{kind}`, `/lobby/new/{kind}`, `/clubs/new`, `/clubs/{club}/new/{kind}`.
    Games,
    /// `POST /manage/{token}/relink/{seat}` and the club desk's
    /// `/clubs/{club}/games/{game}/desk/relink/{seat}`.
    Relinks,
}

impl<S, B> Transform<S, ServiceRequest> for PerClient
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Transform = PerClientService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, Self::InitError>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(PerClientService {
            service: Rc::new(service),
            kind: *self,
        }))
    }
}

/// The [`PerClient`] middleware around a route.
pub struct PerClientService<S> {
    service: Rc<S>,
    kind: PerClient,
}

impl<S, B> Service<ServiceRequest> for PerClientService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = actix_web::Error> + 'static,
    B: 'static,
{
    type Response = ServiceResponse<EitherBody<B>>;
    type Error = actix_web::Error;
    type Future = LocalBoxFuture<'static, Result<Self::Response, Self::Error>>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let verdict = match req.app_data::<web::Data<AppState>>() {
            Some(state) if req.method() == Method::POST => {
                let client = client_addr(req.head(), &state.settings.trusted_proxies);
                match self.kind {
                    PerClient::Games => state.limits.game_by_client(client),
                    PerClient::Relinks => state.limits.relink_by_client(client),
                }
            }
            _ => Ok(()),
        };
        let service = self.service.clone();
        Box::pin(async move {
            match verdict {
                Ok(()) => Ok(service.call(req).await?.map_into_left_body()),
                Err(limited) => {
                    // With the error attached, so pages get it as a page.
                    let response = actix_web::HttpResponse::from_error(WebError::TooMany(limited));
                    let (request, _) = req.into_parts();
                    Ok(ServiceResponse::new(request, response).map_into_right_body())
                }
            }
        })
    }
}
