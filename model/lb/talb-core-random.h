#ifndef TALB_CORE_RANDOM_H
#define TALB_CORE_RANDOM_H

#include "ns3/random-variable-stream.h"
#include "ns3/talb-lb-core.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief The decision core's random source (talb::lb::Random) backed by an ns-3 RNG stream:
 * Integer(min, max) is UniformRandomVariable::GetInteger(min, max), so a selector keeps its
 * stream and draw order. The variable exists once Create() was called (creating one takes an
 * automatic stream index, so it is created exactly where a selector needs it).
 */
class TalbCoreRandom : public talb::lb::Random
{
  public:
    /// Creates the variable.
    void Create();
    /// Draws from \p rng (another's variable) from now on.
    void Share(Ptr<UniformRandomVariable> rng);
    /// Drops the variable (DoDispose).
    void Dispose();

    uint32_t Integer(uint32_t min, uint32_t max) override;

    /// \return the underlying variable (for AssignStreams), null before Create()
    Ptr<UniformRandomVariable> GetVariable() const;

  private:
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif /* TALB_CORE_RANDOM_H */
