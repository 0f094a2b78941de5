//! Logins and the route of claude's API requests, adapter-wide: the methods `initialize` offers,
//! what `authenticate` and `logout` do with claude's own login, the login last seen, and the
//! editor's gateway every claude of this process starts through, and the models it serves. Nothing here knows a session:
//! the session registry applies each outcome to the sessions it holds.

mod listing;
mod login;
mod methods;
mod narrow;
mod route;

pub(crate) use self::listing::SystemHttp;
pub(crate) use self::login::{KnownLogin, Login, authenticate, log_out};
pub(crate) use self::methods::offered;
pub(crate) use self::route::Route;

use crate::domain::{AgentError, MAIN_PROVIDER as PROVIDER_ID};

/// `provider_id` is the one provider, or the request names one that does not exist.
pub(crate) fn check_provider_id(provider_id: &str) -> Result<(), AgentError> {
    if provider_id == PROVIDER_ID {
        Ok(())
    } else {
        Err(AgentError::InvalidParams(format!(
            "unknown provider `{provider_id}`: claude has one route, `{PROVIDER_ID}`"
        )))
    }
}
