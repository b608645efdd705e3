// wsim corpus add | bugs: the regression corpus (corpus/regressions).
#include <iostream>
#include <memory>

#include "cli/commands/commands.h"
#include "cli/subcommand.h"
#include "serve/external_corpus.h"
#include "sim/triage/corpus.h"
#include "sim/triage/corpus_bugs.h"

namespace wsim::cli {

Subcommand add_corpus_command(CLI::App& app) {
  struct State {
    run::CorpusAddCommand add;
    std::string bugs_dir = "corpus/regressions";
    CLI::App* add_app = nullptr;
    CLI::App* bugs_app = nullptr;
    std::vector<std::string> process;  // An external run's bundle: its process (after --).
  };
  auto state = std::make_shared<State>();
  CLI::App* sub = app.add_subcommand("corpus", "the regression corpus (corpus/regressions)");
  sub->require_subcommand(1);
  state->add_app = sub->add_subcommand(
      "add", "turn a failure bundle into corpus/regressions/<system>/<id>-<slug>.textproto");
  state->bugs_app = sub->add_subcommand(
      "bugs", "list the known bugs of the corpus (every violating expect block) as --bug FILE#N");
  state->bugs_app->add_option("dir", state->bugs_dir,
                              "corpus directory (default corpus/regressions)");
  state->add_app->add_option("bundle", state->add.bundle, "failure bundle directory")->required();
  state->add_app->add_option("--name", state->add.name, "slug of the file name");
  CLI::Option* corpus = state->add_app->add_option(
      "--corpus", state->add.corpus_dir,
      "corpus directory (default corpus/regressions; corpus/external for an external run)");
  state->add_app->add_option(
      "command", state->process,
      "an external run's bundle: its process (after --), to run its seed again before adding "
      "(docs/external.md)");
  return {sub, [state, corpus] {
            if (*state->bugs_app)
              return run::cmd_corpus_bugs(state->bugs_dir, std::cout, std::cerr);
            if (!state->process.empty() || serve::is_external_bundle(state->add.bundle)) {
              serve::ExternalCorpusAdd add;
              add.bundle = state->add.bundle;
              add.name = state->add.name;
              if (corpus->count() > 0) add.corpus_dir = state->add.corpus_dir;
              add.command = state->process;
              return serve::cmd_external_corpus_add(add, std::cout, std::cerr);
            }
            return run::cmd_corpus_add(state->add, std::cout, std::cerr);
          }};
}

}  // namespace wsim::cli
