// The JUnit XML report of a hunt (`wsim hunt --junit FILE`, `wsim merge --junit FILE`), for the
// test-report views of GitLab (artifacts:reports:junit) and GitHub (a JUnit action).
//
// One <testsuite name="wsim hunt">, one <testcase> per version tuple (classname
// "wsim.hunt.<system>", name the versions), and in it one <failure> per finding that fails the hunt
// (NEW, or any finding of a hunt without a corpus), whose text is the finding and its repro
// commands. Known findings of a hunt that goes past them do not fail: they are listed in
// <system-out>. No state.
#pragma once

#include <string>

#include "sim/search/hunt_summary.h"

namespace wsim::run {

// The report as XML text.
std::string hunt_junit_xml(const HuntSummary& summary);

// Writes hunt_junit_xml to `path`. False with an error naming the file.
bool write_junit_file(const std::string& path, const HuntSummary& summary, std::string& error);

// `text` escaped for XML character data and attribute values.
std::string xml_escape(const std::string& text);

}  // namespace wsim::run
