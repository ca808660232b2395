//! Questions of a few words and names, as people type them: a name finds the file that
//! defines it, not the files that use it most; a file named after the question's words is
//! found; definitions exist in every language, with or without a grammar; a test
//! framework's own code is not ranked as a test.

use crate::common::TestRepo;

/// A registry that says `Logger` far more often than the class that defines it.
const REGISTRY_PHP: &str = "<?php\nnamespace Monolog;\n\nclass Registry\n{\n    /** @var Logger[] */\n    private static $loggers = [];\n\n    public static function addLogger(Logger $logger, ?string $name = null): void\n    {\n        // Logger Logger Logger: every Logger is kept by name.\n        self::$loggers[$name ?? $logger->getName()] = $logger;\n    }\n\n    public static function getInstance(string $name): Logger\n    {\n        return self::$loggers[$name]; // a Logger\n    }\n}\n";
const LOGGER_PHP: &str = "<?php\nnamespace Monolog;\n\nclass Logger implements LoggerInterface\n{\n    public function addRecord(int $level, string $message): bool\n    {\n        return true;\n    }\n}\n";

#[test]
fn a_name_finds_the_file_that_defines_it_first() {
    let repo = TestRepo::with_files(&[
        ("src/Registry.php", REGISTRY_PHP),
        ("src/Logger.php", LOGGER_PHP),
        (
            "src/Handler/PsrHandler.php",
            "<?php\nclass PsrHandler\n{\n    // wraps a Logger, any Logger\n    private $logger; // Logger\n}\n",
        ),
    ]);
    let hits = repo.hit_paths("Logger", &[]);
    assert_eq!(hits[0], "src/Logger.php", "{hits:?}");
    // The same for a qualified name and for the name inside a question.
    let hits = repo.hit_paths("Monolog::Logger", &[]);
    assert_eq!(hits[0], "src/Logger.php", "{hits:?}");
}

#[test]
fn a_file_named_by_the_question_is_found_first() {
    // The app says "template rendering" in every method; the file named after it says it
    // once. BM25 alone ranks the app first.
    let app: String = (0..6)
        .map(|i| {
            format!(
                "    def render_{i}(self, name):\n        \"\"\"Template rendering step {i}: rendering the template {i}.\"\"\"\n        return self.jinja.render_template(name, step={i})\n\n"
            )
        })
        .collect();
    let repo = TestRepo::with_files(&[
        ("src/app.py", &format!("class App:\n{app}")),
        (
            "src/templating.py",
            "def _render(template, context):\n    \"\"\"Render a template with the given context.\"\"\"\n    return template.render(context)\n\n\ndef render_string(source, **context):\n    return _render(compile(source), context)\n",
        ),
    ]);
    let hits = repo.hit_paths("template rendering", &[]);
    assert_eq!(hits[0], "src/templating.py", "{hits:?}");
}

#[test]
fn every_language_has_definitions_and_a_test_frameworks_code_is_code() {
    let repo = TestRepo::with_files(&[
        // No grammar here for Dart: its definition lines still make symbols.
        (
            "lib/router.dart",
            "/// Routes requests.\nclass Router {\n  void add(String path) {}\n}\n",
        ),
        (
            "lib/bats-core/test_functions.bash",
            "bats_load_library() {\n  local library_name=$1\n  source \"$library_name\"\n}\n",
        ),
        (
            "test/load.bats",
            "@test 'bats_load_library loads a library' {\n  bats_load_library test_helper\n  bats_load_library other\n}\n",
        ),
    ]);
    let hits = repo.search("Router", &["--mode", "symbol"]);
    assert_eq!(hits[0]["path"], "lib/router.dart", "{hits:?}");
    assert!(hits[0]["snippet"]
        .as_str()
        .unwrap()
        .contains("class Router"));
    let hits = repo.hit_paths("bats_load_library", &[]);
    assert_eq!(hits[0], "lib/bats-core/test_functions.bash", "{hits:?}");
    let status = repo.status(&["--verbose"]);
    let languages = status["languages"].as_array().unwrap();
    let treatment = |l: &str| {
        languages
            .iter()
            .find(|x| x["language"] == l)
            .map(|x| x["treatment"].as_str().unwrap().to_string())
    };
    assert_eq!(
        treatment("shell").as_deref(),
        Some("syntax"),
        "{languages:?}"
    );
    assert_eq!(
        treatment("text").as_deref(),
        Some("definition lines"),
        "{languages:?}"
    );
}

#[test]
fn a_qualified_name_in_its_languages_notation_finds_its_definition() {
    // Each name is said far more often in a file that does not define it, or defined too
    // in a file whose name resembles it; the notation says which definition is meant.
    let mentions = |name: &str| format!("{name} ").repeat(12);
    let repo = TestRepo::with_files(&[
        (
            "src/Monolog.php",
            "<?php\nnamespace Monolog;\n\n/** The Monolog facade. */\nclass Monolog\n{\n}\n",
        ),
        (
            "src/Handler/StreamHandler.php",
            "<?php\nnamespace Monolog\\Handler;\n\nclass StreamHandler extends AbstractHandler\n{\n    public function write(array $record): void\n    {\n    }\n}\n",
        ),
        (
            "src/Handler/HandlerRegistry.php",
            &format!("<?php\nnamespace Monolog\\Handler;\n\n// {}\nclass HandlerRegistry\n{{\n}}\n", mentions("Monolog Handler StreamHandler")),
        ),
        (
            "lib/rails/application.rb",
            "module Rails\n  class Application\n    def initialize!(group = :default)\n      run_initializers(group, self)\n    end\n  end\nend\n",
        ),
        (
            "lib/rails/initializable.rb",
            &format!("module Rails\n  module Initializable\n    # {}\n    def initialize(name)\n      @name = name\n    end\n  end\nend\n", mentions("initialize initializers")),
        ),
        (
            "lib/phoenix/controller.ex",
            "defmodule Phoenix.Controller do\n  def render(conn, template, assigns) do\n    conn\n  end\nend\n",
        ),
        (
            "lib/phoenix/endpoint/render_errors.ex",
            &format!("defmodule Phoenix.Endpoint.RenderErrors do\n  # {}\n  def render(conn, kind, reason) do\n    conn\n  end\nend\n", mentions("render Phoenix Controller render")),
        ),
    ]);
    let wrong: Vec<_> = [
        (
            "Monolog\\Handler\\StreamHandler",
            "src/Handler/StreamHandler.php",
        ),
        ("Rails::Application#initialize!", "lib/rails/application.rb"),
        ("initialize!", "lib/rails/application.rb"),
        ("Phoenix.Controller.render/3", "lib/phoenix/controller.ex"),
    ]
    .into_iter()
    .map(|(query, file)| (query, file, repo.hit_paths(query, &[])))
    .filter(|(_, file, hits)| hits.first().map(String::as_str) != Some(*file))
    .collect();
    assert!(wrong.is_empty(), "{wrong:?}");
}
