# Homebrew formula for appdna (docs/install.md). From a clone, through a local tap (current
# Homebrew installs formulae only from taps):
#   brew tap-new --no-git local/appdna
#   cp Formula/appdna.rb "$(brew --repository local/appdna)/Formula/"
#   brew install --HEAD local/appdna/appdna        (or without --HEAD: the tagged release)
# Older Homebrew also takes the file directly: brew install --HEAD ./Formula/appdna.rb
# The stable url names the release tag and the commit it must point at (a moved tag fails the
# install); `scripts/homebrew-formula --tag vX.Y.Z` rewrites both after tagging.
class Appdna < Formula
  desc "Command-line tool for apps on AppDNA: bundles, bucketing, event queues, webhooks"
  homepage "https://github.com/appdna/appdna-cli"
  url "https://github.com/appdna/appdna-cli.git",
      tag:      "v0.1.0",
      revision: "85e9a86c0c39026f3c0469102a3751107ca68452"
  # No licence has been chosen yet (packaging/debian/copyright: all rights reserved).
  license :cannot_represent
  head "https://github.com/appdna/appdna-cli.git", branch: "main"

  # Swift 6: on macOS Xcode 16.2 (Swift 6.0.3), the oldest compiler CI builds with and the one
  # scripts/check-availability holds the code to (MINIMUM_COMPILER; HomebrewFormulaTests keeps
  # the two equal); the swift formula on Linux.
  depends_on xcode: ["16.2", :build]
  uses_from_macos "swift" => :build
  # Loaded at run time when a command needs them (HTTPS, Android queues, replay's gzip).
  uses_from_macos "curl"
  uses_from_macos "sqlite"
  uses_from_macos "zlib"

  def install
    # Homebrew builds inside its own sandbox, where SwiftPM's sandbox-exec cannot nest.
    # Only the appdna product: not the plugin's host-tool copy, nor the test-support targets.
    args = ["--disable-sandbox", "--configuration", "release", "--product", "appdna"]
    if OS.linux?
      # macOS has the Swift runtime in the system; on Linux it is linked in.
      args << "--static-swift-stdlib"
      # The binary loads libcurl, libsqlite3 and zlib with dlopen by file name when a command
      # needs them (Sources/AppDNACore/Platform/SystemLibrary.swift). A RUNPATH to the lib
      # directory of each dependency above makes that search find Homebrew's copies, the ones
      # this formula depends on, before the system's.
      %w[curl sqlite zlib].each do |dependency|
        args += ["-Xlinker", "-rpath", "-Xlinker", Formula[dependency].opt_lib.to_s]
      end
    end
    system "swift", "build", *args
    bin.install ".build/release/appdna"
    man1.install "man/appdna.1"
    bash_completion.install "completions/appdna.bash" => "appdna"
    zsh_completion.install "completions/_appdna"
    fish_completion.install "completions/appdna.fish"
  end

  test do
    assert_match "appdna #{version}", shell_output("#{bin}/appdna --version") unless build.head?
    output = shell_output("#{bin}/appdna bucket user_12345 exp_paywall_v3 a8f3c9d2 " \
                          "--variants control=0.5,variant_b=0.5")
    assert_match(/^hash\s+3214585791$/, output)
    assert_match(/^variant\s+variant_b$/, output)
    # Sign and verify a body: HMAC-SHA256 through the built SHA-256 code; a wrong signature is 1.
    (testpath/"body.json").write '{"event":"ping"}'
    (testpath/"secret").write "whsec_test"
    signature = shell_output("#{bin}/appdna webhook sign --secret-file secret body.json 2>/dev/null").strip
    assert_equal "sha256=645e86a36ef1ed458be359c7d3c57737f8a202a88274a809a507f208ba54d991", signature
    shell_output("#{bin}/appdna webhook verify --secret-file secret --signature #{signature} body.json 2>&1")
    shell_output("#{bin}/appdna webhook verify --secret-file secret --signature sha256=#{"0" * 64} body.json 2>&1", 1)
  end
end
