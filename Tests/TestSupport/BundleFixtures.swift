/// The bundles the fetch tests serve (in-process and end-to-end): the API's shape with a content
/// wrapper, the SDK file fetch writes from it, and a bundle already in the SDK's shape.
public enum BundleFixtures {
    public static func apiBundle(version: Int = 42, weights: (Double, Double) = (0.5, 0.5)) -> String {
        """
        {"bundle_version": \(version), "sdk_min_version": "1.0.0", "size_bytes": 15234, "generated_at": "2026-02-19T10:00:00Z",
         "content": {"onboarding_flows": {"active_flow_id": "f1", "flows": {"f1": {"steps": []}}}, "paywalls": {},
                     "remote_config": {"dark_mode": true, "max_items": 3}, "feature_flags": {},
                     "in_app_messages": {"m1": {"text": "caf\\u00e9 /"}},
                     "experiments": {"exp_paywall_v3": {"id": "exp_paywall_v3", "status": "running", "salt": "a8f3c9d2",
                        "variants": [{"id": "control", "weight": \(weights.0)}, {"id": "variant_b", "weight": \(weights.1)}]}}}}
        """
    }

    public static let expectedSDKFile = """
    {
      "bundle_version": 42,
      "sdk_min_version": "1.0.0",
      "generated_at": "2026-02-19T10:00:00Z",
      "onboarding": {
        "active_flow_id": "f1",
        "flows": {
          "f1": {
            "steps": []
          }
        }
      },
      "paywalls": {},
      "remote_config": {
        "dark_mode": true,
        "max_items": 3
      },
      "feature_flags": {},
      "messages": {
        "m1": {
          "text": "caf\\u00e9 /"
        }
      },
      "experiments": {
        "exp_paywall_v3": {
          "id": "exp_paywall_v3",
          "status": "running",
          "salt": "a8f3c9d2",
          "variants": [
            {
              "id": "control",
              "weight": 0.5
            },
            {
              "id": "variant_b",
              "weight": 0.5
            }
          ]
        }
      }
    }

    """

    public static let sdkBundle = """
    {"bundle_version":7,"experiments":{"experiments":{"e":{"salt":"s","variants":[{"id":"a","weight":1}]}}},"feature_flags":{"x":1,"y":2},"onboarding":{}}
    """
}
