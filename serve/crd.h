// CustomResourceDefinitions (apiextensions.k8s.io/v1): a CRD written through the front-end makes
// its kind served (resources.h register_custom), from its own names, scope, versions, schema and
// subresources; its deletion stops serving the kind.
//
// Threading: safe from any thread (the registry has its own mutex).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace wsim::serve {

// Registers every served version of `crd` (its served JSON). False with `error` naming the field
// for a CRD that cannot be served.
bool register_crd(const nlohmann::json& crd, std::string& error);
// Checks a CRD before it is stored: the same errors register_crd would give.
bool validate_crd(const nlohmann::json& crd, std::string& error);
void unregister_crd(const nlohmann::json& crd);

// The status the API server gives an accepted CRD: acceptedNames and the NamesAccepted and
// Established conditions (True).
nlohmann::json crd_status(const nlohmann::json& crd, const std::string& time);

}  // namespace wsim::serve
