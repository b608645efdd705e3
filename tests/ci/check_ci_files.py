#!/usr/bin/env python3
"""Checks the CI and deployment files of the repository without running them.

Every workflow and CI file (.github/workflows/*.yml, .gitlab-ci.yml, deploy/k8s/*.yaml,
.clusterfuzzlite/project.yaml) must parse as YAML. Every command they (and deploy/Dockerfile) run
that lives in the repository must exist with the options it uses:
  scripts/NAME ...   the script exists and is executable, and each --option appears in its text
                     (scripts/build passes its options to `cmake --build`: checked against its
                     --help when cmake is installed);
  [scripts/]wsim SUB the subcommand exists and each --option appears in `wsim SUB --help`.
Then the structure the README promises: the sharded hunts (GitHub matrix, GitLab parallel,
Kubernetes Indexed Job) agree on their shard count and use --shard, --summary and a merge step,
failure bundles are kept as artifacts, and JUnit reports come from scripts/test or --junit.

Usage: check_ci_files.py --root REPO --wsim WSIM_BINARY [--self-test]
Exit: 0 clean, 1 problems (listed), 77 PyYAML missing (ctest SKIP_RETURN_CODE).
"""
import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

try:
    import yaml
except ImportError:  # pragma: no cover - depends on the machine
    print("check_ci_files: SKIP: python3 yaml (PyYAML, Debian python3-yaml) is not installed")
    sys.exit(77)


class Checker:
    def __init__(self, root, wsim):
        self.root = root
        self.wsim = wsim
        self.problems = []
        self.help_cache = {}
        self.commands_checked = 0

    def problem(self, where, text):
        self.problems.append(f"{where}: {text}")

    # ---- commands -------------------------------------------------------------------------
    def wsim_help(self, sub):
        if sub not in self.help_cache:
            result = subprocess.run([self.wsim, sub, "--help"], capture_output=True, text=True)
            # An unknown subcommand prints the top-level help ("Usage: wsim [OPTIONS] SUBCOMMAND").
            usage = re.search(r"^Usage: \S+ " + re.escape(sub) + r"\b", result.stdout, re.M)
            self.help_cache[sub] = result.stdout if result.returncode == 0 and usage else None
        return self.help_cache[sub]

    def cmake_build_help(self):
        if "cmake" not in self.help_cache:
            try:
                result = subprocess.run(["cmake", "--build", "--help"], capture_output=True,
                                        text=True)
                self.help_cache["cmake"] = result.stdout + result.stderr
            except FileNotFoundError:
                self.help_cache["cmake"] = None
        return self.help_cache["cmake"]

    def check_wsim(self, where, words):
        if not words or words[0].startswith("-"):
            self.problem(where, f"wsim without a subcommand: {' '.join(words)}")
            return
        sub = words[0]
        text = self.wsim_help(sub)
        if text is None:
            self.problem(where, f"wsim has no subcommand '{sub}'")
            return
        for option in options_of(words[1:]):
            if not re.search(r"(^|[\s,])" + re.escape(option) + r"\b", text):
                self.problem(where, f"wsim {sub} has no option {option}")

    def check_script(self, where, name, words):
        path = os.path.join(self.root, name)
        if not os.path.isfile(path):
            self.problem(where, f"{name} does not exist in the repository")
            return
        if not os.access(path, os.X_OK):
            self.problem(where, f"{name} is not executable")
        if name == "scripts/wsim":
            self.check_wsim(where, words)
            return
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for option in options_of(words):
            if option in text:
                continue
            cmake = self.cmake_build_help() if name == "scripts/build" else None
            if cmake is not None and option in cmake:
                continue
            self.problem(where, f"{name} does not take {option}")

    def check_command_line(self, where, line):
        for segment in re.split(r"&&|\|\||;|\|", line):
            try:
                words = shlex.split(segment, comments=True)
            except ValueError:
                words = segment.split()
            while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
                words = words[1:]  # VAR=value before the command
            if words and words[0] in ("bash", "env", "exec", "time"):
                words = words[1:]
            if not words:
                continue
            command = words[0].lstrip("./") if words[0].startswith("./") else words[0]
            if command == "wsim":
                self.commands_checked += 1
                self.check_wsim(where, words[1:])
            elif command.startswith("scripts/") or command.startswith(".ci/"):
                self.commands_checked += 1
                self.check_script(where, command, words[1:])

    def check_script_text(self, where, text):
        for line in logical_lines(text):
            self.check_command_line(where, line)


def options_of(words):
    """The --long options among words (their values and positionals dropped)."""
    out = []
    for word in words:
        match = re.match(r"^(--[A-Za-z0-9][A-Za-z0-9-]*)", word)
        if match:
            out.append(match.group(1))
    return out


def logical_lines(text):
    """Shell lines with backslash continuations joined."""
    return text.replace("\\\n", " ").splitlines()


def load_yaml(checker, path, many=False):
    rel = os.path.relpath(path, checker.root)
    try:
        with open(path, encoding="utf-8") as f:
            return list(yaml.safe_load_all(f)) if many else yaml.safe_load(f)
    except yaml.YAMLError as e:
        checker.problem(rel, f"not valid YAML: {e}")
        return None


# ---- GitHub Actions ---------------------------------------------------------------------------
def check_github(checker, path):
    rel = os.path.relpath(path, checker.root)
    doc = load_yaml(checker, path)
    if not isinstance(doc, dict):
        checker.problem(rel, "not a workflow (a mapping)")
        return None
    if "jobs" not in doc or not isinstance(doc["jobs"], dict):
        checker.problem(rel, "no jobs")
        return doc
    for name, job in doc["jobs"].items():
        if "runs-on" not in job:
            checker.problem(f"{rel}: jobs.{name}", "no runs-on")
        for i, step in enumerate(job.get("steps", [])):
            if "run" in step:
                checker.check_script_text(f"{rel}: jobs.{name}.steps[{i}].run", step["run"])
            if "uses" not in step and "run" not in step:
                checker.problem(f"{rel}: jobs.{name}.steps[{i}]", "neither uses nor run")
    return doc


def cflite_modes(doc):
    modes = set()
    for job in doc.get("jobs", {}).values():
        for step in job.get("steps", []):
            if "clusterfuzzlite/actions/run_fuzzers" in str(step.get("uses", "")):
                modes.add(step.get("with", {}).get("mode"))
    return modes


def check_github_structure(checker, docs):
    expected = {"cflite_pr.yml": "code-change", "cflite_batch.yml": "batch",
                "cflite_cron.yml": "prune"}
    for name, mode in expected.items():
        if name not in docs:
            checker.problem(".github/workflows", f"{name} is missing")
        elif docs[name] is not None and cflite_modes(docs[name]) != {mode}:
            checker.problem(f".github/workflows/{name}", f"run_fuzzers mode is not {mode!r}")
    ci = docs.get("ci.yml")
    if ci is None:
        checker.problem(".github/workflows", "ci.yml is missing")
    else:
        runs = " ".join(str(s.get("run", "")) for j in ci.get("jobs", {}).values()
                        for s in j.get("steps", []))
        for needed in ("scripts/test", "scripts/fuzz pr"):
            if needed not in runs:
                checker.problem(".github/workflows/ci.yml", f"does not run {needed}")
    hunt = docs.get("hunt.yml")
    if hunt is None:
        checker.problem(".github/workflows", "hunt.yml is missing")
        return
    where = ".github/workflows/hunt.yml"
    on = hunt.get("on", hunt.get(True, {}))  # YAML 1.1 reads the key `on` as True.
    if "schedule" not in (on or {}):
        checker.problem(where, "not scheduled")
    shards = hunt.get("env", {}).get("WSIM_HUNT_SHARDS")
    matrix = hunt.get("jobs", {}).get("hunt", {}).get("strategy", {}).get("matrix", {})
    if matrix.get("shard") != list(range(int(shards or 0))):
        checker.problem(where, f"matrix.shard {matrix.get('shard')} is not 0..WSIM_HUNT_SHARDS-1 "
                        f"({shards})")
    text = open(os.path.join(checker.root, where), encoding="utf-8").read()
    for needed in ("--shard", "--summary", "wsim merge", "hunt-out/bundles-", "upload-artifact"):
        if needed not in text:
            checker.problem(where, f"does not use {needed}")
    merge = hunt.get("jobs", {}).get("merge", {})
    if merge.get("needs") != "hunt" and "hunt" not in (merge.get("needs") or []):
        checker.problem(where, "the merge job does not need the hunt job")


# ---- GitLab CI --------------------------------------------------------------------------------
GITLAB_KEYWORDS = {"stages", "variables", "default", "include", "workflow", "image", "services",
                   "before_script", "after_script", "cache"}


def check_gitlab(checker, path):
    rel = os.path.relpath(path, checker.root)
    doc = load_yaml(checker, path)
    if not isinstance(doc, dict):
        checker.problem(rel, "not a mapping")
        return
    stages = doc.get("stages", [])
    for section in ("before_script",):
        for line in doc.get("default", {}).get(section, []):
            checker.check_script_text(f"{rel}: default.{section}", line)
    jobs = {k: v for k, v in doc.items() if k not in GITLAB_KEYWORDS and not k.startswith(".")}
    for name, job in jobs.items():
        if job.get("stage") not in stages:
            checker.problem(f"{rel}: {name}", f"stage {job.get('stage')!r} is not in stages")
        if "script" not in job:
            checker.problem(f"{rel}: {name}", "no script")
        for key in ("before_script", "script", "after_script"):
            for i, line in enumerate(job.get(key, [])):
                checker.check_script_text(f"{rel}: {name}.{key}[{i}]", line)
    for name in ("test", "fuzz", "hunt", "hunt-merge"):
        if name not in jobs:
            checker.problem(rel, f"no {name} job")
    check_gitlab_hunt(checker, rel, jobs)


def check_gitlab_hunt(checker, rel, jobs):
    hunt = jobs.get("hunt", {})
    if not isinstance(hunt.get("parallel"), int) or hunt["parallel"] < 2:
        checker.problem(f"{rel}: hunt", "parallel: N (N >= 2) is missing")
    script = "\n".join(hunt.get("script", []))
    if "--shard $((CI_NODE_INDEX-1))/$CI_NODE_TOTAL" not in script:
        checker.problem(f"{rel}: hunt", "does not run --shard $((CI_NODE_INDEX-1))/$CI_NODE_TOTAL")
    if not any("schedule" in str(rule.get("if", "")) for rule in hunt.get("rules", [])):
        checker.problem(f"{rel}: hunt", "not limited to scheduled pipelines")
    if "hunt-out/" not in hunt.get("artifacts", {}).get("paths", []):
        checker.problem(f"{rel}: hunt", "the failure bundles (hunt-out/) are not artifacts")
    for name in ("test", "hunt-merge"):
        junit = jobs.get(name, {}).get("artifacts", {}).get("reports", {}).get("junit")
        if not junit:
            checker.problem(f"{rel}: {name}", "no artifacts:reports:junit")
    merge = "\n".join(jobs.get("hunt-merge", {}).get("script", []))
    if "wsim merge" not in merge:
        checker.problem(f"{rel}: hunt-merge", "does not run wsim merge")


# ---- Kubernetes -------------------------------------------------------------------------------
def container_commands(checker, where, container):
    command = container.get("command", [])
    args = container.get("args", [])
    if command[-2:] == ["/bin/bash", "-c"] or command[-2:] == ["bash", "-c"] or \
            command[-2:] == ["/bin/sh", "-c"]:
        for script in args:
            checker.check_script_text(where, script)
    elif command or args:
        checker.check_command_line(where, " ".join(shlex.quote(w) for w in command + args))


def env_of(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def check_k8s(checker, path):
    rel = os.path.relpath(path, checker.root)
    docs = load_yaml(checker, path, many=True) or []
    indexed = None
    shards = set()
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        spec = doc.get("spec", {}).get("template", {}).get("spec", {})
        name = doc.get("metadata", {}).get("name")
        for kind in ("initContainers", "containers"):
            for c in spec.get(kind, []):
                container_commands(checker, f"{rel}: {name}.{kind}.{c.get('name')}", c)
                if "WSIM_SHARDS" in env_of(c):
                    shards.add(env_of(c)["WSIM_SHARDS"])
        if doc.get("kind") == "Job" and doc["spec"].get("completionMode") == "Indexed":
            indexed = doc
    if indexed is None:
        checker.problem(rel, "no Job with completionMode: Indexed")
        return
    completions = indexed["spec"].get("completions")
    if shards != {str(completions)}:
        checker.problem(rel, f"WSIM_SHARDS {sorted(shards)} differs from completions {completions}")
    text = open(path, encoding="utf-8").read()
    for needed in ("JOB_COMPLETION_INDEX", "--summary", "wsim merge", "persistentVolumeClaim"):
        if needed not in text:
            checker.problem(rel, f"does not use {needed}")


def check_dockerfile(checker, path):
    rel = os.path.relpath(path, checker.root)
    text = open(path, encoding="utf-8").read().replace("\\\n", " ")
    if not re.search(r"^FROM debian:12", text, re.M):
        checker.problem(rel, "not based on debian:12")
    if "scripts/deps" not in text:
        checker.problem(rel, "does not install the packages of scripts/deps")
    for line in text.splitlines():
        if line.startswith("RUN "):
            checker.check_command_line(rel, line[4:])


def check_repository(checker):
    root = checker.root
    github = {}
    for path in sorted(glob.glob(os.path.join(root, ".github/workflows/*.yml"))):
        github[os.path.basename(path)] = check_github(checker, path)
    check_github_structure(checker, github)
    gitlab = os.path.join(root, ".gitlab-ci.yml")
    if os.path.exists(gitlab):
        check_gitlab(checker, gitlab)
    else:
        checker.problem(".gitlab-ci.yml", "missing")
    for path in sorted(glob.glob(os.path.join(root, "deploy/k8s/*.yaml"))):
        check_k8s(checker, path)
    load_yaml(checker, os.path.join(root, ".clusterfuzzlite/project.yaml"))
    check_dockerfile(checker, os.path.join(root, "deploy/Dockerfile"))
    if checker.commands_checked == 0:
        checker.problem(root, "no repository command found in any CI file")


def self_test(root, wsim):
    """The checker must fail on broken commands (a check that cannot fail proves nothing)."""
    checker = Checker(root, wsim)
    checker.check_command_line("t", "scripts/wsim hunt --shardz 0/2")
    checker.check_command_line("t", "scripts/no-such-script --x")
    checker.check_command_line("t", "wsim frobnicate")
    checker.check_command_line("t", "scripts/fuzz pr --no-such-option 1")
    checker.check_command_line("t", "code=0; wsim hunt --shard 0/2 --summary s.json || code=$?")
    expected = ["wsim hunt has no option --shardz", "scripts/no-such-script does not exist",
                "wsim has no subcommand 'frobnicate'", "scripts/fuzz does not take --no-such-option"]
    missing = [e for e in expected if not any(e in p for p in checker.problems)]
    if missing or len(checker.problems) != len(expected):
        print("check_ci_files: self-test failed; problems:", checker.problems, "missing:", missing)
        return 1
    print(f"check_ci_files: self-test ok ({len(expected)} planted problems found)")
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", required=True)
    parser.add_argument("--wsim", required=True)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test(args.root, args.wsim)
    checker = Checker(args.root, args.wsim)
    check_repository(checker)
    for problem in checker.problems:
        print(problem)
    if checker.problems:
        print(f"check_ci_files: {len(checker.problems)} problems")
        return 1
    print(f"check_ci_files: ok ({checker.commands_checked} repository commands checked)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
