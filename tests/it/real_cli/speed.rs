//! Fast mode's config category with the real CLI through claude-acp, offline on the mock API:
//! schema 1.20's `speed` for an editor that speaks 1.20 (it declared one of 1.20's own
//! capabilities), `model_config` as before for every other.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::acp_client::{AcpClient, config_option};
use crate::support::mock_api::{MockApi, Reply, Rule};
use crate::support::real_cli::ClaudeEnv;
use crate::support::v2_schema::violations_1_20_v1;

/// The Fast mode option a session offers an editor that declared `capabilities`.
async fn fast_mode_for(capabilities: Value) -> Value {
    let mock = MockApi::start(vec![Rule::always(Reply::text("ok"))]);
    let env = ClaudeEnv::new(&mock);
    let c = AcpClient::from_command(env.command(crate::support::adapter()));
    c.set_timeout(Duration::from_secs(60));
    c.initialize_with_capabilities(capabilities).await;
    let opened = c.open_session(env.work_dir()).await;
    let options = c.options_holding(&opened, "fast").await;
    config_option(&options, "fast").unwrap_or_else(|| panic!("Fast mode: {options}"))
}

#[tokio::test]
async fn fast_mode_is_a_speed_option_for_an_editor_that_speaks_1_20_only() {
    let declared = json!({"session": {"promptSuggestions": {}, "configOptions": {"boolean": {}}}});
    let fast = fast_mode_for(declared).await;
    assert_eq!(fast["category"], "speed", "{fast}");
    let faults = violations_1_20_v1("SessionConfigOption", &fast);
    assert!(faults.is_empty(), "{faults:#?}\n{fast}");

    let fast = fast_mode_for(json!({"session": {"configOptions": {"boolean": {}}}})).await;
    assert_eq!(fast["category"], "model_config", "{fast}");
}
